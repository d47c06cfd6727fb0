"""A warm pool per engine for the Runtime API service (``--warm-pool-size``).

The service cannot know a sandbox's start command before a client asks, so it learns it:
each ``/start`` records its template (image, command, environment, working dir, resource
factor, OCI runtime: everything but the session id). The pool keeps ``size`` idle sandboxes
of the latest template on every engine. A ``/start`` whose template matches claims one:
its pool key is replaced by a fresh session key through the action server (the pool key
stops working), its CPU weight is raised, and it is recorded for the session like any other
sandbox. Unclaimed members have no record in Redis, so a restarted service removes them
(``SandboxService.reconcile``). A member is never handed out twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import httpx

from openhands.core.logger import openhands_logger as logger
from openhands.runtime.remote_api.engines import (
    LABEL_NAMESPACE,
    LABEL_RUNTIME_ID,
    ContainerSpec,
    EnginePool,
)
from openhands.runtime.remote_api.errors import EngineError
from openhands.runtime.remote_api.models import StartRequest
from openhands.runtime.server.session_key import KEY_FILE_ENV

LABEL_POOL = "openhands.runtime-api.pool"
SANDBOX_KEY_FILE = "/openhands/session_api_key"
POOL_CPU_SHARES = 2
DEFAULT_CPU_SHARES = 1024
READY_TIMEOUT_SECONDS = 120.0
READY_POLL_SECONDS = 0.2
RETRY_SECONDS = 5.0

# (runtime id, template, session key) → the container a sandbox of that template is.
ContainerSpecFactory = Callable[[str, StartRequest, str], ContainerSpec]


def template_of(request: StartRequest) -> StartRequest:
    """The request without its session: what every sandbox of this kind is started with."""
    return request.model_copy(update={"session_id": "-"})


def fingerprint(template: StartRequest) -> str:
    text = json.dumps(template.model_dump(mode="json"), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@dataclass
class WarmSandbox:
    runtime_id: str
    engine: str
    container_id: str
    host_port: int
    url: str
    pool_key: str
    fingerprint: str


@dataclass(frozen=True)
class Claimed:
    runtime_id: str
    engine: str
    container_id: str
    host_port: int
    url: str
    session_api_key: str


class WarmPool:
    def __init__(
        self,
        engines: EnginePool,
        size: int,
        namespace: str,
        spec_for: ContainerSpecFactory,
        publish_host: str,
    ) -> None:
        self.size = size
        self._engines = engines
        self._namespace = namespace
        self._spec_for = spec_for
        self._publish_host = publish_host
        self._template: StartRequest | None = None
        self._members: dict[str, list[WarmSandbox]] = {name: [] for name in engines.names}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._http = httpx.AsyncClient(timeout=10.0)
        self.hits = 0
        self.misses = 0

    def start(self) -> None:
        if self.size > 0 and self._task is None:
            self._task = asyncio.create_task(self._run(), name="runtime-api-warm-pool")

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for engine, members in self._members.items():
            for member in members:
                with contextlib.suppress(EngineError):
                    await self._engines.remove(engine, member.container_id)
            members.clear()
        await self._http.aclose()

    def ready(self, engine: str | None = None) -> int:
        if engine is not None:
            return len(self._members.get(engine, []))
        return sum(len(members) for members in self._members.values())

    async def wait_ready(self, count: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while self.ready() < count:
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(READY_POLL_SECONDS)
        return True

    # --- claim -----------------------------------------------------------------------------

    async def claim(self, request: StartRequest, engine_order: list[str]) -> Claimed | None:
        """A warm sandbox for ``request`` (engines tried in ``engine_order``), or None."""
        if self.size <= 0:
            return None
        template = template_of(request)
        wanted = fingerprint(template)
        if self._template is None or fingerprint(self._template) != wanted:
            self._template = template  # fill with what clients ask for now
        self._wake.set()
        for engine in engine_order:
            members = self._members.get(engine, [])
            member = next((m for m in members if m.fingerprint == wanted), None)
            if member is None:
                continue
            members.remove(member)  # no await since the look-up: no one else can take it
            claimed = await self._hand_over(member)
            if claimed is not None:
                self.hits += 1
                logger.info("Warm pool hit: sandbox %s for session %s", member.runtime_id,
                            request.session_id)  # fmt: skip
                return claimed
        self.misses += 1
        logger.info("Warm pool miss for session %s", request.session_id)
        return None

    async def _hand_over(self, member: WarmSandbox) -> Claimed | None:
        new_key = secrets.token_urlsafe(32)
        try:
            response = await self._http.post(
                f"{member.url}/session_api_key",
                headers={"X-Session-API-Key": member.pool_key},
                json={"session_api_key": new_key},
            )
            response.raise_for_status()
            await self._engines.update_cpu_shares(
                member.engine, member.container_id, DEFAULT_CPU_SHARES
            )
        except (httpx.HTTPError, EngineError) as exc:
            logger.warning("Warm sandbox %s could not be handed over: %s", member.runtime_id, exc)
            with contextlib.suppress(EngineError):
                await self._engines.remove(member.engine, member.container_id)
            return None
        return Claimed(
            member.runtime_id,
            member.engine,
            member.container_id,
            member.host_port,
            member.url,
            new_key,
        )

    # --- refill ----------------------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            try:
                await self._refill()
                await self._wake.wait()
                self._wake.clear()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                logger.warning("Warm pool refill failed: %s", exc)
                await asyncio.sleep(RETRY_SECONDS)

    async def _refill(self) -> None:
        template = self._template
        if template is None:
            return  # nothing asked for yet
        wanted = fingerprint(template)
        for engine, members in self._members.items():
            for member in [m for m in members if m.fingerprint != wanted]:
                members.remove(member)
                logger.info("Warm pool: discarding %s (other template)", member.runtime_id)
                with contextlib.suppress(EngineError):
                    await self._engines.remove(engine, member.container_id)
            while len(members) < self.size and self._template is template:
                members.append(await self._create(engine, template, wanted))

    async def _create(self, engine: str, template: StartRequest, wanted: str) -> WarmSandbox:
        await self._engines.ensure_image(engine, template.image)
        runtime_id = secrets.token_hex(8)
        pool_key = secrets.token_urlsafe(32)
        spec = self._spec_for(runtime_id, template, pool_key)
        spec = replace(
            spec,
            environment={**spec.environment, KEY_FILE_ENV: SANDBOX_KEY_FILE},
            # No session label: the member belongs to nobody until claimed.
            labels={
                LABEL_NAMESPACE: self._namespace,
                LABEL_RUNTIME_ID: runtime_id,
                LABEL_POOL: "1",
            },
            cpu_shares=POOL_CPU_SHARES,
        )
        container_id, port = await self._engines.create(engine, spec)
        member = WarmSandbox(
            runtime_id,
            engine,
            container_id,
            port,
            f"http://{self._publish_host}:{port}",
            pool_key,
            wanted,
        )
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        while True:
            with contextlib.suppress(httpx.HTTPError, ValueError):
                answer = await self._http.get(f"{member.url}/alive", timeout=2)
                if answer.status_code == 200 and answer.json().get("status") == "ok":
                    logger.info("Warm pool: sandbox %s ready on %s", runtime_id, engine)
                    return member
            if time.monotonic() > deadline:
                with contextlib.suppress(EngineError):
                    await self._engines.remove(engine, container_id)
                raise EngineError(f"warm sandbox {runtime_id} did not become ready")
            await asyncio.sleep(READY_POLL_SECONDS)
