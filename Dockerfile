# The bot's image: three replicas on PostgreSQL with docker-compose.yml, or one process on
# SQLite on its own (README, "Deploying"):
#
#   docker run --env-file .env -v bot-data:/data -p 3000:3000 <image>
FROM python:3.11-slim
COPY pyproject.toml README.md /src/
COPY bot /src/bot
COPY memory /src/memory
RUN pip install --no-cache-dir /src && rm -rf /root/.cache /src
# The bot runs as a user of its own, never root. It writes only to /data, its working
# directory: BOT_DB_PATH=./bot.db (the default) is /data/bot.db, beside its -wal and -shm
# files. A named volume mounted there starts with this ownership; a host folder mounted
# there must be writable by uid 10001 (chown 10001 <folder>). With BOT_DB_URL (PostgreSQL),
# nothing is written at all.
RUN useradd --system --uid 10001 --user-group --no-create-home --home-dir /data bot \
    && mkdir /data && chown bot:bot /data
WORKDIR /data
VOLUME ["/data"]
USER bot
EXPOSE 3000
CMD ["python", "-m", "bot"]
