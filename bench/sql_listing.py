"""Conversation listing in PostgreSQL at 100,000 conversations (issue: shared stores).

Starts its own PostgreSQL 15 (tests/support/services.py) in a temporary folder, migrates it
with the store's own migrations, loads 100,000 conversation rows with COPY for four users
(50,000 / 30,000 / 15,000 / 5,000; creation times spread over a year at one-second
resolution, so equal timestamps occur), runs ANALYZE, then times ``SqlConversationStore``
calls end to end (query + row decoding + pydantic models), 20 conversations per page:

- first page, every user's conversations (the server's shared store, no owner);
- first page of one user (the ``owner`` filter: the per-user listing);
- a deep page of that user through a keyset page id near its 50,000th conversation,
  and the same depth through an offset page id (what the file store hands out) for contrast;
- a deep page of all users near the 100,000th conversation;
- every page of a 30,000-conversation user, walked from the first to the last through
  ``next_page_id`` (1,500 pages): each page's latency.

Prints p50/p99 in ms per case and the EXPLAIN (ANALYZE, BUFFERS) plan of the per-user
first page and the deep keyset page (both index scans of the listing index).

Run: `python bench/sql_listing.py` (about a minute).
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import text

from openhands.storage.sql.conversation_store import SqlConversationStore
from openhands.storage.sql.database import Database
from openhands.storage.sql.page_tokens import Keyset, keyset_page_id, parse_page_id
from openhands.storage.sql.tables import conversation_metadata
from tests.support.services import PostgresService

USERS = {"alice": 50_000, "bob": 30_000, "carol": 15_000, "dave": 5_000}
PAGE = 20
RUNS = 300
WARMUP = 20
START = datetime(2025, 1, 1, tzinfo=UTC)
YEAR_SECONDS = 365 * 24 * 3600


def _records() -> list[tuple[Any, ...]]:
    rng = random.Random(59)
    records = []
    number = 0
    for user, count in USERS.items():
        for _ in range(count):
            created = START + timedelta(seconds=rng.randrange(YEAR_SECONDS))
            records.append(
                (
                    f"{number:032x}",
                    f"org/repo{number % 50}",
                    user,
                    "main",
                    "github",
                    f"Conversation {number}",
                    created + timedelta(minutes=5),
                    "gui",
                    [],
                    created,
                    "anthropic/claude-sonnet-4",
                    0.0,
                    0,
                    0,
                    0,
                )
            )
            number += 1
    return records


async def _load(database: Database) -> float:
    records = _records()
    columns = [column.name for column in conversation_metadata.columns]
    engine = await database.ready()
    started = time.perf_counter()
    async with engine.connect() as connection:
        raw = await connection.get_raw_connection()
        driver: Any = raw.driver_connection
        await driver.copy_records_to_table(
            "conversation_metadata", records=records, columns=columns
        )
        await connection.commit()
        await connection.execute(text("ANALYZE conversation_metadata"))
        await connection.commit()
    return time.perf_counter() - started


async def _time(call: Callable[[], Awaitable[object]], runs: int = RUNS) -> list[float]:
    for _ in range(WARMUP):
        await call()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def _report(name: str, samples: list[float]) -> None:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * len(ordered)) - 1)]
    print(f"  {name:<52} p50 {statistics.median(ordered):6.2f} ms   p99 {p99:6.2f} ms")


async def _token_at(store: SqlConversationStore, owner: str | None, depth: int) -> str:
    """The keyset page id of the page that starts after the ``depth``-th conversation."""
    query = store.search_query(depth - 1, 0, owner)  # one row: the depth-th, newest first
    engine = await store.database.ready()
    async with engine.connect() as connection:
        row = (await connection.execute(query)).mappings().one()
    return keyset_page_id(row["created_at"], row["conversation_id"])


async def _explain(store: SqlConversationStore, position: Keyset | int, owner: str) -> str:
    engine = await store.database.ready()
    compiled = store.search_query(position, PAGE, owner).compile(dialect=engine.dialect)
    args = [compiled.params[name] for name in compiled.positiontup or ()]
    async with engine.connect() as connection:
        raw = await connection.get_raw_connection()
        driver: Any = raw.driver_connection
        rows = await driver.fetch(f"EXPLAIN (ANALYZE, BUFFERS) {compiled.string}", *args)
    return "\n".join("    " + row[0] for row in rows)


async def _walk(store: SqlConversationStore, owner: str) -> tuple[list[float], int]:
    samples: list[float] = []
    seen = 0
    page_id: str | None = None
    while True:
        started = time.perf_counter()
        page = await store.search(page_id, PAGE, owner=owner)
        samples.append((time.perf_counter() - started) * 1000)
        seen += len(page.results)
        page_id = page.next_page_id
        if page_id is None:
            return samples, seen


async def _bench(url: str) -> None:
    database = Database(url)
    try:
        seconds = await _load(database)
        total = sum(USERS.values())
        print(f"loaded {total:,} conversations with COPY in {seconds:.2f} s")
        store = SqlConversationStore(database)
        alice_deep = await _token_at(store, "alice", 49_980)
        all_deep = await _token_at(store, None, 99_980)
        offset_deep = "NDk5ODA="  # base64 of "49980"
        assert len((await store.search(alice_deep, PAGE, owner="alice")).results) == PAGE

        print(f"\nlatency of SqlConversationStore.search (limit {PAGE}, {RUNS} runs each):")
        _report("first page, all users", await _time(lambda: store.search(None, PAGE)))
        _report(
            "first page, owner=alice (filtered)",
            await _time(lambda: store.search(None, PAGE, owner="alice")),
        )
        _report(
            "deep page, owner=alice, keyset id at 49,980",
            await _time(lambda: store.search(alice_deep, PAGE, owner="alice")),
        )
        _report(
            "deep page, owner=alice, offset id at 49,980",
            await _time(lambda: store.search(offset_deep, PAGE, owner="alice"), runs=50),
        )
        _report(
            "deep page, all users, keyset id at 99,980",
            await _time(lambda: store.search(all_deep, PAGE)),
        )
        walk, seen = await _walk(store, "bob")
        _report(f"walk every page of bob ({len(walk)} pages, {seen:,} rows)", walk)
        assert seen == USERS["bob"]

        print("\nEXPLAIN first page, owner=alice:")
        print(await _explain(store, 0, "alice"))
        cursor = _keyset_of(alice_deep)
        print("\nEXPLAIN deep page, owner=alice, keyset id at 49,980:")
        print(await _explain(store, cursor, "alice"))
    finally:
        await database.dispose()


def _keyset_of(page_id: str) -> Keyset:
    position = parse_page_id(page_id)
    assert isinstance(position, Keyset)
    return position


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="sql-listing-") as folder:
        service = PostgresService(Path(folder) / "postgres")
        service.start()
        try:
            asyncio.run(_bench(service.url))
        finally:
            service.stop()


if __name__ == "__main__":
    main()
