# The bot's image, for docker-compose.yml (several replicas on PostgreSQL) or on its own.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY memory ./memory
RUN pip install --no-cache-dir . && rm -rf /root/.cache
# Nothing is written inside the container when BOT_DB_URL points at PostgreSQL.
USER nobody
EXPOSE 3000
CMD ["python", "-m", "bot"]
