"""``python -m openhands.storage.sql upgrade [REVISION]`` / ``current`` / ``head``.

Uses ``OPENHANDS_DATABASE_URL``; safe to run on several nodes at once (advisory lock).
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from openhands.storage.sql.database import (
    DatabaseNotConfiguredError,
    database_url,
    safe_url,
)
from openhands.storage.sql.migrate import current_revision, head_revision, upgrade


async def _run(command: str, revision: str) -> str:
    from sqlalchemy.ext.asyncio import create_async_engine

    url = database_url()
    engine = create_async_engine(url)
    try:
        if command == "upgrade":
            await upgrade(engine, revision)
        found = await current_revision(engine)
    finally:
        await engine.dispose()
    return f"{safe_url(url)}: at revision {found or '(none)'}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m openhands.storage.sql")
    parser.add_argument("command", choices=("upgrade", "current", "head"))
    parser.add_argument("revision", nargs="?", default="head", help="upgrade target")
    args = parser.parse_args(argv)
    if args.command == "head":
        print(head_revision())
        return 0
    try:
        print(asyncio.run(_run(args.command, args.revision)))
    except DatabaseNotConfiguredError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
