"""`/api/options/*` (server-api §6.2)."""

from __future__ import annotations

from pathlib import Path

from openhands.core.config import OpenHandsConfig
from openhands.server.server_config import ServerConfig
from tests.unit.server.conftest import build_app, running


async def test_web_config(harness) -> None:
    body = (await harness.client.get("/api/options/config")).json()
    assert body == {
        "APP_MODE": "oss",
        "GITHUB_CLIENT_ID": "",
        "POSTHOG_CLIENT_KEY": "",
        "FEATURE_FLAGS": {"ENABLE_BILLING": False, "HIDE_LLM_SETTINGS": False},
    }


async def test_web_config_from_env(app_config: OpenHandsConfig, workspace: Path) -> None:
    server = ServerConfig.from_env(
        {
            "GITHUB_APP_CLIENT_ID": "abc",
            "ENABLE_BILLING": "true",
            "HIDE_LLM_SETTINGS": "false",
            "SERVE_FRONTEND": "false",
        }
    )
    async with running(build_app(app_config, server, workspace), workspace) as h:
        body = (await h.client.get("/api/options/config")).json()
        assert body["GITHUB_CLIENT_ID"] == "abc"
        assert body["FEATURE_FLAGS"] == {"ENABLE_BILLING": True, "HIDE_LLM_SETTINGS": False}


async def test_models_agents_analyzers(harness) -> None:
    models = (await harness.client.get("/api/options/models")).json()
    assert models == sorted(set(models))
    assert "openhands/claude-sonnet-4-20250514" in models
    assert any(m.startswith("anthropic/") for m in models)
    agents = (await harness.client.get("/api/options/agents")).json()
    assert agents == sorted(agents) and "CodeActAgent" in agents
    analyzers = (await harness.client.get("/api/options/security-analyzers")).json()
    assert analyzers == sorted(analyzers) and "llm" in analyzers


async def test_model_list_does_not_block_the_event_loop(harness, monkeypatch) -> None:
    """Building the list imports LiteLLM (seconds): other requests must be served meanwhile."""
    import asyncio
    import threading

    from openhands.server.routes import public

    release = threading.Event()

    def slow_models() -> tuple[str, ...]:
        release.wait(10)
        return ("openai/gpt-4o",)

    monkeypatch.setattr(public, "litellm_models", slow_models)
    public.model_list.cache_clear()  # the sorted answer is cached too
    public.models_body.cache_clear()  # and so is its JSON
    try:
        models = asyncio.create_task(harness.client.get("/api/options/models"))
        await asyncio.sleep(0.05)
        config = await asyncio.wait_for(harness.client.get("/api/options/config"), 5)
        assert config.status_code == 200 and not models.done()
        release.set()
        assert "openai/gpt-4o" in (await models).json()
    finally:
        public.model_list.cache_clear()  # not the fake list for the tests after this one
        public.models_body.cache_clear()


async def test_custom_agents_of_the_config_are_listed(
    app_config: OpenHandsConfig,
    server_config: ServerConfig,
    workspace: Path,
    tmp_path: Path,
    monkeypatch,
) -> None:
    from openhands.controller.agent import Agent
    from openhands.core.config import AgentConfig

    (tmp_path / "options_custom_agent.py").write_text(
        "from openhands.controller.agent import Agent\n"
        "class ListedAgent(Agent):\n"
        "    def step(self, state):\n"
        "        raise NotImplementedError\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(Agent, "_registry", dict(Agent._registry))
    app_config.set_agent_config(AgentConfig(classpath="options_custom_agent:ListedAgent"), "Listed")
    async with running(build_app(app_config, server_config, workspace), workspace) as h:
        agents = (await h.client.get("/api/options/agents")).json()
    assert "Listed" in agents and "CodeActAgent" in agents
