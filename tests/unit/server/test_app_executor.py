"""The app's worker threads: sandboxes blocking threads must not stall other requests."""

from __future__ import annotations

import asyncio
import os
import threading


async def test_requests_are_served_while_many_threads_are_blocked(harness) -> None:
    await harness.store_settings()
    release = threading.Event()
    # More blocked calls than the default pool has threads (CPU count + 4), the way
    # starting sandboxes hold them.
    blocked = [
        asyncio.create_task(asyncio.to_thread(release.wait, 30))
        for _ in range((os.cpu_count() or 1) + 8)
    ]
    try:
        await asyncio.sleep(0.1)
        response = await asyncio.wait_for(harness.client.get("/api/settings"), 5)
        assert response.status_code == 200
    finally:
        release.set()
        await asyncio.gather(*blocked)
