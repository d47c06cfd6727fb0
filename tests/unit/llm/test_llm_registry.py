"""LLMRegistry and routers (agent spec §7.7), with LLMs pointed at the scripted server."""

from __future__ import annotations

import pytest

from openhands.core.config import AgentConfig, ModelRoutingConfig, OpenHandsConfig
from openhands.core.message import ImageContent, Message, TextContent
from openhands.llm.llm import LLM
from openhands.llm.llm_registry import LLMRegistry, RegistryEvent
from openhands.llm.router import MultimodalRouter
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer


def _app_config(server: ScriptedLLMServer) -> OpenHandsConfig:
    config = OpenHandsConfig()
    config.set_llm_config(server.llm_config())
    config.set_llm_config(server.llm_config(model="openai/other-model"), "other")
    return config


@pytest.fixture
def registry(scripted_llm: ScriptedLLMServer) -> LLMRegistry:
    return LLMRegistry(_app_config(scripted_llm))


def test_agent_service_is_created_from_the_default_agent(registry: LLMRegistry) -> None:
    agent = registry.get_active_llm()
    assert agent.service_id == "agent"
    assert agent.config.model == "openai/test-model"
    assert registry.service_to_llm == {"agent": agent}


def test_agent_cls_picks_its_llm_config(scripted_llm: ScriptedLLMServer) -> None:
    config = _app_config(scripted_llm)
    config.set_agent_config(AgentConfig(llm_config="other"), "BrowsingAgent")
    registry = LLMRegistry(config, agent_cls="BrowsingAgent")
    assert registry.get_active_llm().config.model == "openai/other-model"


def test_get_llm_semantics(registry: LLMRegistry, scripted_llm: ScriptedLLMServer) -> None:
    condenser_cfg = scripted_llm.llm_config(caching_prompt=False)
    condenser = registry.get_llm("condenser", condenser_cfg)
    assert registry.get_llm("condenser", condenser_cfg) is condenser
    assert registry.get_llm("condenser") is condenser
    with pytest.raises(ValueError):
        registry.get_llm("condenser", scripted_llm.llm_config(model="openai/other-model"))
    with pytest.raises(ValueError):
        registry.get_llm("never-seen")


def test_same_config_for_known_model_is_not_a_conflict(scripted_llm: ScriptedLLMServer) -> None:
    registry = LLMRegistry(_app_config(scripted_llm))
    cfg = scripted_llm.llm_config(model="openai/gpt-4o")  # the LLM resolves token limits itself
    first = registry.get_llm("title", cfg)
    assert registry.get_llm("title", scripted_llm.llm_config(model="openai/gpt-4o")) is first


def test_agent_config_lookup_returns_existing_even_if_config_differs(registry: LLMRegistry) -> None:
    agent = registry.get_active_llm()
    other_agent_config = AgentConfig(llm_config="other")
    assert registry.get_llm_from_agent_config("agent", other_agent_config) is agent
    delegate = registry.get_llm_from_agent_config("delegate", other_agent_config)
    assert delegate.config.model == "openai/other-model"


def test_subscribe_notifies_now_and_on_later_creations(
    registry: LLMRegistry, scripted_llm: ScriptedLLMServer
) -> None:
    events: list[RegistryEvent] = []
    registry.subscribe(events.append)
    assert [(e.service_id, e.llm) for e in events] == [("agent", registry.get_active_llm())]
    registry.get_llm("condenser", scripted_llm.llm_config())
    registry.get_llm("condenser")  # existing: no event
    assert [e.service_id for e in events] == ["agent", "condenser"]


def test_request_extraneous_completion(
    registry: LLMRegistry, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.push(s.text("  A short title \n"))
    title = registry.request_extraneous_completion(
        "title_generator", scripted_llm.llm_config(), [{"role": "user", "content": "name it"}]
    )
    assert title == "A short title"
    assert "title_generator" in registry.service_to_llm
    assert scripted_llm.last_request.messages == [{"role": "user", "content": "name it"}]


def test_noop_router_is_the_agent_llm(registry: LLMRegistry) -> None:
    assert registry.get_router(AgentConfig()) is registry.get_active_llm()


def test_unknown_router_is_rejected(registry: LLMRegistry) -> None:
    with pytest.raises(ValueError):
        registry.get_router(AgentConfig(model_routing=ModelRoutingConfig(router_name="magic")))


def _routing_agent_config(server: ScriptedLLMServer, max_input_tokens: int | None) -> AgentConfig:
    secondary = server.llm_config(
        model="openai/cheap-model", for_routing=True, max_input_tokens=max_input_tokens
    )
    routing = ModelRoutingConfig(
        router_name="multimodal_router", llms_for_routing={"secondary_model": secondary}
    )
    return AgentConfig(model_routing=routing)


def test_multimodal_router_needs_a_secondary_model(registry: LLMRegistry) -> None:
    routing = ModelRoutingConfig(router_name="multimodal_router")
    with pytest.raises(ValueError, match="secondary_model"):
        registry.get_router(AgentConfig(model_routing=routing))


def test_multimodal_router_routes_by_images(
    registry: LLMRegistry, scripted_llm: ScriptedLLMServer
) -> None:
    events: list[RegistryEvent] = []
    registry.subscribe(events.append)
    router = registry.get_router(_routing_agent_config(scripted_llm, max_input_tokens=None))
    assert isinstance(router, MultimodalRouter)
    assert registry.get_router(_routing_agent_config(scripted_llm, None)) is router
    assert {"llm_for_routing.secondary_model", "router_llm"} <= {e.service_id for e in events}

    scripted_llm.push(s.text("cheap"), s.text("strong"))
    text_only = [Message(role="user", content=[TextContent(text="hello")])]
    assert router.completion(messages=text_only).choices[0].message.content == "cheap"
    assert scripted_llm.last_request.body["model"] == "cheap-model"

    with_image = [
        Message(role="user", content=[ImageContent(image_urls=["data:image/png;base64,AA"])])
    ]
    router.completion(messages=with_image)
    assert scripted_llm.last_request.body["model"] == "test-model"
    # each call is measured on the LLM that served it
    secondary = registry.service_to_llm["llm_for_routing.secondary_model"]
    assert len(secondary.metrics.token_usages) == 1
    assert len(registry.get_active_llm().metrics.token_usages) == 1


def test_multimodal_router_sticks_to_primary_after_overflow(
    registry: LLMRegistry, scripted_llm: ScriptedLLMServer
) -> None:
    router = registry.get_router(_routing_agent_config(scripted_llm, max_input_tokens=20))
    assert isinstance(router, LLM)
    scripted_llm.push(s.text("a"), s.text("b"), s.text("c"))
    short = [{"role": "user", "content": "hi"}]
    long = [{"role": "user", "content": "many words here " * 30}]
    router.completion(messages=short)
    assert scripted_llm.last_request.body["model"] == "cheap-model"
    router.completion(messages=long)
    assert scripted_llm.last_request.body["model"] == "test-model"
    router.completion(messages=short)
    assert scripted_llm.last_request.body["model"] == "test-model"


def test_get_llm_errors_name_the_problem(
    registry: LLMRegistry, scripted_llm: ScriptedLLMServer
) -> None:
    registry.get_llm("condenser", scripted_llm.llm_config())
    with pytest.raises(ValueError, match="Requesting same service ID condenser with different"):
        registry.get_llm("condenser", scripted_llm.llm_config(model="openai/other-model"))
    with pytest.raises(ValueError, match="Requesting new LLM without specifying LLM config"):
        registry.get_llm("never-seen")


def test_side_completions_do_not_report_retries(scripted_llm: ScriptedLLMServer) -> None:
    retries: list[tuple[int, int]] = []
    registry = LLMRegistry(
        _app_config(scripted_llm), retry_listener=lambda n, total: retries.append((n, total))
    )
    scripted_llm.push(s.rate_limit_error(), s.text("Title"))
    config = scripted_llm.llm_config(num_retries=2)
    assert (
        registry.request_extraneous_completion("title", config, [{"role": "user", "content": "x"}])
        == "Title"
    )
    assert len(scripted_llm.completion_requests) == 2  # it did retry ...
    assert retries == []  # ... without telling the agent's listener
    assert registry.service_to_llm["title"].retry_listener is None
    assert registry.get_active_llm().retry_listener is not None
