"""Which node runs a conversation's agent loop: one Redis lease (a hash) per conversation.

The hash ``openhands:lease:<sid>`` holds the owner node, the conversation's user and the
loop's status and runtime status (so any node can answer status questions). It expires
unless the owner renews it. Every change is a Lua script, so taking, renewing and
releasing compare the owner and write in one step: two nodes never both hold a lease.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from redis.asyncio import Redis

KEY_PREFIX = "openhands:lease:"
DEFAULT_TTL_MS = 15_000

# KEYS[1] lease; ARGV: node, ttl, owner that may be replaced (dead) or "", user, status.
# Returns the owner after the call.
_ACQUIRE = """
local owner = redis.call('HGET', KEYS[1], 'node')
if owner and owner ~= ARGV[1] and owner ~= ARGV[3] then return owner end
if owner ~= ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'node', ARGV[1], 'user', ARGV[4], 'status', ARGV[5], 'runtime', '')
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return ARGV[1]
"""
# KEYS[1] lease; ARGV: node, ttl, status, runtime status. 1 if renewed, 0 if not ours.
_RENEW = """
if redis.call('HGET', KEYS[1], 'node') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[3], 'runtime', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""
# KEYS[1] lease; ARGV: node. Deletes the lease if that node holds it.
_RELEASE = """
if redis.call('HGET', KEYS[1], 'node') == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


@dataclass(frozen=True)
class Lease:
    sid: str
    node: str
    user_id: str | None
    status: str
    runtime_status: str | None


def lease_key(sid: str) -> str:
    return f"{KEY_PREFIX}{sid}"


class ConversationLeases:
    def __init__(self, redis: Redis, node_id: str, ttl_ms: int = DEFAULT_TTL_MS) -> None:
        self.redis = redis
        self.node_id = node_id
        self.ttl_ms = ttl_ms

    async def _eval(self, script: str, key: str, *args: str | int) -> Any:
        return await cast(Awaitable[Any], self.redis.eval(script, 1, key, *args))

    async def acquire(
        self, sid: str, user_id: str | None, status: str, replacing: str | None = None
    ) -> str:
        """Take the lease unless another node holds it (``replacing`` names a holder known
        to be dead); returns the owner afterwards."""
        owner = await self._eval(
            _ACQUIRE,
            lease_key(sid),
            self.node_id,
            self.ttl_ms,
            replacing or "",
            user_id or "",
            status,
        )
        return _text(owner)

    async def renew(self, states: dict[str, tuple[str, str | None]]) -> set[str]:
        """Renew this node's leases with their loops' (status, runtime status); returns the
        conversations whose lease is no longer ours."""
        if not states:
            return set()
        async with self.redis.pipeline(transaction=False) as pipe:
            for sid, (status, runtime) in states.items():
                pipe.eval(
                    _RENEW, 1, lease_key(sid), self.node_id, self.ttl_ms, status, runtime or ""
                )
            results = await pipe.execute()
        return {sid for sid, renewed in zip(states, results, strict=True) if not renewed}

    async def release(self, sid: str, node: str | None = None) -> None:
        await self._eval(_RELEASE, lease_key(sid), node or self.node_id)

    async def read(self, sids: Iterable[str] | None = None) -> dict[str, Lease]:
        """The leases of ``sids`` (every lease when None)."""
        if sids is None:
            keys = [_text(key) async for key in self.redis.scan_iter(f"{KEY_PREFIX}*", count=500)]
            wanted = [key[len(KEY_PREFIX) :] for key in keys]
        else:
            wanted = sorted(set(sids))
        if not wanted:
            return {}
        async with self.redis.pipeline(transaction=False) as pipe:
            for sid in wanted:
                pipe.hgetall(lease_key(sid))
            rows = await pipe.execute()
        leases: dict[str, Lease] = {}
        for sid, row in zip(wanted, rows, strict=True):
            fields = {_text(k): _text(v) for k, v in (row or {}).items()}
            if fields.get("node"):
                leases[sid] = Lease(
                    sid=sid,
                    node=fields["node"],
                    user_id=fields.get("user") or None,
                    status=fields.get("status") or "STARTING",
                    runtime_status=fields.get("runtime") or None,
                )
        return leases


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
