"""The async engine of the SQL stores, and the schema check on first use.

The URL comes from ``OPENHANDS_DATABASE_URL`` (``postgresql://`` or
``postgresql+asyncpg://``). One ``Database`` exists per event loop, made on first use; a
server has one loop, so one engine and one connection pool per process. (asyncpg
connections belong to the loop that opened them, hence the key.) The first store call
on a ``Database`` upgrades the schema to head unless ``OPENHANDS_DATABASE_MIGRATE`` is
``0``/``false`` (deployments that run ``python -m openhands.storage.sql upgrade``
themselves).

The URL is only ever shown with its password hidden.
"""

from __future__ import annotations

import asyncio
import os
import weakref
from collections.abc import Mapping

from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from openhands.storage.sql.migrate import upgrade

DATABASE_URL_ENV = "OPENHANDS_DATABASE_URL"
MIGRATE_ENV = "OPENHANDS_DATABASE_MIGRATE"
_ASYNC_DRIVER = "postgresql+asyncpg"


class DatabaseNotConfiguredError(RuntimeError):
    """A SQL store was asked for without ``OPENHANDS_DATABASE_URL``."""


def database_url(env: Mapping[str, str] | None = None) -> URL:
    """The configured URL, with the asyncpg driver whatever PostgreSQL spelling it used."""
    env = os.environ if env is None else env
    raw = env.get(DATABASE_URL_ENV, "").strip()
    if not raw:
        raise DatabaseNotConfiguredError(f"{DATABASE_URL_ENV} is not set")
    url = make_url(raw)
    if url.drivername in ("postgres", "postgresql", "postgresql+psycopg2", "postgresql+psycopg"):
        url = url.set(drivername=_ASYNC_DRIVER)
    return url


def safe_url(url: URL) -> str:
    """``url`` for messages: the password is replaced by ``***``."""
    return url.render_as_string(hide_password=True)


class Database:
    """An async engine plus the once-per-engine schema upgrade."""

    def __init__(self, url: str | URL, *, migrate: bool = True) -> None:
        self.url = make_url(url)
        self.engine: AsyncEngine = create_async_engine(self.url, pool_pre_ping=True)
        self._migrate = migrate
        self._ready = False
        self._ready_lock = asyncio.Lock()

    def __repr__(self) -> str:
        return f"Database({safe_url(self.url)!r})"

    async def ready(self) -> AsyncEngine:
        """The engine, after the schema upgrade on first call (if enabled)."""
        if not self._ready:
            async with self._ready_lock:
                if not self._ready:
                    if self._migrate:
                        await upgrade(self.engine)
                    self._ready = True
        return self.engine

    async def dispose(self) -> None:
        """Close every pooled connection."""
        await self.engine.dispose()


_databases: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Database] = (
    weakref.WeakKeyDictionary()
)


def _migrate_enabled(env: Mapping[str, str]) -> bool:
    return env.get(MIGRATE_ENV, "1").strip().lower() not in ("0", "false", "no", "off")


def get_database() -> Database:
    """The ``Database`` of the running event loop, made from the environment on first use."""
    loop = asyncio.get_running_loop()
    database = _databases.get(loop)
    if database is None:
        database = Database(database_url(), migrate=_migrate_enabled(os.environ))
        _databases[loop] = database
    return database


async def dispose_database() -> None:
    """Forget and close the running loop's ``Database`` (a lifespan's shutdown, tests)."""
    database = _databases.pop(asyncio.get_running_loop(), None)
    if database is not None:
        await database.dispose()
