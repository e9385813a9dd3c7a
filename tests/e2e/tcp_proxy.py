"""A TCP pass-through to a server (PostgreSQL here) that a test can take down and bring
back, as a restart or failover of that server looks to its clients: every open
connection is cut, new ones are refused, then accepted again on the same port."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from types import TracebackType
from typing import Self

__all__ = ["TcpProxy"]


class TcpProxy:
    """Listens on 127.0.0.1 (a free port, kept across :meth:`down` and :meth:`up`) and
    forwards each connection to ``host:port``."""

    def __init__(self, host: str, port: int) -> None:
        self._target = (host, port)
        self._server: asyncio.Server | None = None
        self._pipes: set[asyncio.Task[None]] = set()
        self.port = _free_port()

    async def up(self) -> None:
        self._server = await asyncio.start_server(self._connected, "127.0.0.1", self.port)

    async def down(self) -> None:
        """Refuse new connections and cut every open one."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for pipe in list(self._pipes):
            pipe.cancel()
        await asyncio.gather(*self._pipes, return_exceptions=True)

    async def __aenter__(self) -> Self:
        await self.up()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.down()

    async def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._pipes.add(task)
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self._target)
            try:
                await asyncio.gather(_pump(reader, upstream_writer), _pump(upstream_reader, writer))
            finally:
                upstream_writer.close()
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            writer.close()
            self._pipes.discard(task)


async def _pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    with contextlib.suppress(OSError):
        while data := await source.read(65536):
            sink.write(data)
            await sink.drain()
    sink.close()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
