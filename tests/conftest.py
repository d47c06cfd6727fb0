"""Settings for the whole suite (kept small: fixtures live next to the tests that use them)."""

import os

# LiteLLM would otherwise try to download its model price map at import time (no internet).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# Never let a developer's own config.toml or LLM key leak into tests.
os.environ.setdefault("OPENHANDS_TEST", "1")


_SANDBOX_PREFIX = "openhands-runtime-"
_sandboxes_before: set[str] = set()


def _exited_sandboxes() -> set[str]:
    """Ids of stopped sandbox containers; empty when no Docker engine answers."""
    try:
        import docker

        client = docker.from_env(timeout=10)
        found = client.containers.list(
            all=True, filters={"status": "exited", "name": _SANDBOX_PREFIX}
        )
    except Exception:
        return set()
    return {c.id for c in found if c.name.startswith(_SANDBOX_PREFIX)}


def pytest_sessionstart(session: object) -> None:
    _sandboxes_before.update(_exited_sandboxes())


def pytest_sessionfinish(session: object, exitstatus: int) -> None:
    # A stopped conversation keeps its exited container (it can be resumed), so tests that
    # stop without deleting leave containers behind; remove the ones this run stopped.
    leftovers = _exited_sandboxes() - _sandboxes_before
    if not leftovers:
        return
    import docker

    client = docker.from_env(timeout=30)
    for container_id in leftovers:
        try:
            client.containers.get(container_id).remove(force=True)
        except Exception:
            pass
