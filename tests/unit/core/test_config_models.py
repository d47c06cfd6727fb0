"""Defaults, secrets and accessors of the config models (spec agent.md §7.1, §9.1)."""

from __future__ import annotations

import os

import pytest
from pydantic import SecretStr, ValidationError

from openhands.core.config import (
    AgentConfig,
    AppConfig,
    CLIConfig,
    ConversationWindowCondenserConfig,
    KubernetesConfig,
    LLMConfig,
    MCPConfig,
    ModelRoutingConfig,
    OpenHandsConfig,
    SandboxConfig,
    SecurityConfig,
)
from openhands.core.config.config_utils import EXPOSE_SECRETS

_EXPORTED_ENV = (
    "OR_SITE_URL",
    "OR_APP_NAME",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_REGION_NAME",
)


@pytest.fixture(autouse=True)
def _restore_exported_env(monkeypatch: pytest.MonkeyPatch) -> None:
    # LLMConfig exports provider variables; make monkeypatch restore them afterwards.
    for name in _EXPORTED_ENV:
        monkeypatch.setenv(name, "placeholder")
        monkeypatch.delenv(name)


def test_llm_config_defaults() -> None:
    cfg = LLMConfig()
    assert cfg.model == "claude-sonnet-4-20250514"
    assert cfg.api_key is None
    assert cfg.base_url is None
    assert cfg.num_retries == 5
    assert cfg.retry_multiplier == 8
    assert cfg.retry_min_wait == 8
    assert cfg.retry_max_wait == 64
    assert cfg.timeout is None
    assert cfg.max_message_chars == 30_000
    assert cfg.temperature == 0.0
    assert cfg.top_p == 1.0
    assert cfg.top_k is None
    assert cfg.max_input_tokens is None
    assert cfg.max_output_tokens is None
    assert cfg.drop_params is True
    assert cfg.modify_params is True
    assert cfg.disable_vision is None
    assert cfg.disable_stop_word is False
    assert cfg.caching_prompt is True
    assert cfg.log_completions is False
    assert os.path.isabs(cfg.log_completions_folder)
    assert cfg.log_completions_folder.endswith(os.path.join("logs", "completions"))
    assert cfg.native_tool_calling is None
    assert cfg.seed is None
    assert cfg.safety_settings is None
    assert cfg.for_routing is False
    assert cfg.openrouter_site_url == "https://docs.all-hands.dev/"
    assert cfg.openrouter_app_name == "OpenHands"


def test_llm_config_derived_defaults() -> None:
    assert LLMConfig().reasoning_effort == "high"
    assert LLMConfig(model="gemini-2.5-pro").reasoning_effort is None
    assert LLMConfig(reasoning_effort="low").reasoning_effort == "low"
    assert LLMConfig(model="azure/gpt-4o").api_version == "2024-12-01-preview"
    assert LLMConfig(model="azure/gpt-4o", api_version="v1").api_version == "v1"
    assert LLMConfig(model="gpt-4o").api_version is None
    # Derived values do not count as explicitly set.
    assert LLMConfig().model_fields_set == set()


def test_llm_config_refresh_after_model_change() -> None:
    cfg = LLMConfig()
    cfg.model = "gemini-2.5-pro"
    cfg.refresh_derived_defaults()
    assert cfg.reasoning_effort is None
    cfg.model = "azure/gpt-4o"
    cfg.refresh_derived_defaults()
    assert cfg.api_version == "2024-12-01-preview"
    assert cfg.reasoning_effort == "high"


def test_llm_config_exports_provider_env() -> None:
    LLMConfig(
        aws_access_key_id="AKIAEXAMPLE",
        aws_secret_access_key="aws-secret-value",
        aws_region_name="eu-west-1",
        openrouter_app_name="MyApp",
    )
    assert os.environ["AWS_ACCESS_KEY_ID"] == "AKIAEXAMPLE"
    assert os.environ["AWS_SECRET_ACCESS_KEY"] == "aws-secret-value"
    assert os.environ["AWS_REGION_NAME"] == "eu-west-1"
    assert os.environ["OR_APP_NAME"] == "MyApp"
    assert os.environ["OR_SITE_URL"] == "https://docs.all-hands.dev/"


def test_llm_config_forbids_unknown_keys() -> None:
    with pytest.raises(ValidationError, match="not_a_key"):
        LLMConfig(not_a_key=1)  # type: ignore[call-arg]


@pytest.mark.parametrize(
    "model_cls",
    [
        OpenHandsConfig,
        AgentConfig,
        SandboxConfig,
        SecurityConfig,
        MCPConfig,
        KubernetesConfig,
        CLIConfig,
        ModelRoutingConfig,
    ],
)
def test_models_forbid_unknown_keys(model_cls: type) -> None:
    with pytest.raises(ValidationError, match="bogus_key"):
        model_cls(bogus_key=True)


def test_secrets_are_masked_everywhere() -> None:
    llm = LLMConfig(api_key="sk-very-secret", aws_secret_access_key="aws-very-secret")
    app = OpenHandsConfig(jwt_secret="jwt-very-secret", search_api_key="tvly-very-secret")
    app.set_llm_config(llm)
    app.sandbox.api_key = SecretStr("remote-very-secret")
    for text in (
        repr(app),
        str(app),
        repr(llm),
        str(llm),
        str(app.model_dump(mode="json")),
        app.model_dump_json(),
    ):
        for secret in (
            "sk-very-secret",
            "aws-very-secret",
            "jwt-very-secret",
            "tvly-very-secret",
            "remote-very-secret",
        ):
            assert secret not in text
    assert isinstance(llm.api_key, SecretStr)
    assert llm.api_key.get_secret_value() == "sk-very-secret"
    assert app.model_dump(mode="json")["llms"]["llm"]["api_key"] == "**********"


def test_secrets_revealed_only_on_request() -> None:
    app = OpenHandsConfig(jwt_secret="jwt-very-secret")
    dumped = app.model_dump(mode="json", context={EXPOSE_SECRETS: True})
    assert dumped["jwt_secret"] == "jwt-very-secret"
    assert app.model_dump(mode="json")["jwt_secret"] == "**********"


def test_core_string_assignment_becomes_secret() -> None:
    app = OpenHandsConfig()
    app.search_api_key = "tvly-abc"  # type: ignore[assignment]
    assert isinstance(app.search_api_key, SecretStr)


def test_openhands_config_defaults() -> None:
    cfg = OpenHandsConfig()
    assert cfg.llms == {}
    assert cfg.agents == {}
    assert cfg.default_agent == "CodeActAgent"
    assert cfg.runtime == "docker"
    assert cfg.file_store == "local"
    assert cfg.file_store_path == "~/.openhands"
    assert cfg.file_store_web_hook_url is None
    assert cfg.file_store_web_hook_headers is None
    assert cfg.file_store_web_hook_batch is False
    assert cfg.enable_browser is True
    assert cfg.save_trajectory_path is None
    assert cfg.save_screenshots_in_trajectory is False
    assert cfg.replay_trajectory_path is None
    assert cfg.search_api_key is None
    assert cfg.workspace_base is None
    assert cfg.workspace_mount_path_in_sandbox == "/workspace"
    assert cfg.workspace_mount_path is None
    assert cfg.workspace_mount_rewrite is None
    assert cfg.cache_dir == "/tmp/cache"
    assert cfg.run_as_openhands is True
    assert cfg.max_iterations == 500
    assert cfg.max_budget_per_task is None
    assert cfg.init_git_in_empty_workspace is False
    assert cfg.disable_color is False
    assert cfg.debug is False
    assert cfg.jwt_secret is None
    assert cfg.file_uploads_max_file_size_mb == 0
    assert cfg.file_uploads_restrict_file_types is False
    assert cfg.file_uploads_allowed_extensions == [".*"]
    assert cfg.cli_multiline_input is False
    assert cfg.conversation_max_age_seconds == 864_000
    assert cfg.enable_default_condenser is True
    assert cfg.max_concurrent_conversations == 3
    assert cfg.git_user_name == "openhands"
    assert cfg.git_user_email == "openhands@all-hands.dev"
    assert AppConfig is OpenHandsConfig


def test_mcp_host_default_follows_port_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("port", raising=False)
    assert OpenHandsConfig().mcp_host == "localhost:3000"
    monkeypatch.setenv("port", "3456")
    assert OpenHandsConfig().mcp_host == "localhost:3456"


def test_agent_config_defaults() -> None:
    cfg = AgentConfig()
    assert cfg.cli_mode is False
    assert cfg.llm_config is None
    assert cfg.classpath is None
    assert cfg.system_prompt_filename == "system_prompt.j2"
    assert (cfg.enable_browsing, cfg.enable_editor, cfg.enable_jupyter, cfg.enable_cmd) == (
        True,
        True,
        True,
        True,
    )
    assert (cfg.enable_think, cfg.enable_finish, cfg.enable_mcp) == (True, True, True)
    assert cfg.enable_llm_editor is False
    assert cfg.enable_condensation_request is False
    assert cfg.enable_prompt_extensions is True
    assert cfg.disabled_microagents == []
    assert cfg.enable_history_truncation is True
    assert cfg.enable_som_visual_browsing is True
    assert cfg.enable_plan_mode is True
    assert isinstance(cfg.condenser, ConversationWindowCondenserConfig)
    assert cfg.model_routing.router_name == "noop_router"
    assert cfg.model_routing.llms_for_routing == {}
    assert cfg.extended.to_dict() == {}
    assert cfg.runtime is None


def test_resolved_system_prompt_filename() -> None:
    assert AgentConfig().resolved_system_prompt_filename == "system_prompt_long_horizon.j2"
    assert AgentConfig(enable_plan_mode=False).resolved_system_prompt_filename == "system_prompt.j2"
    custom = AgentConfig(system_prompt_filename="mine.j2")
    assert custom.resolved_system_prompt_filename == "mine.j2"


def test_sandbox_config_defaults() -> None:
    cfg = SandboxConfig()
    assert cfg.timeout == 120
    assert cfg.base_container_image == "nikolaik/python-nodejs:python3.12-nodejs22"
    assert cfg.runtime_container_image is None
    assert cfg.user_id == os.getuid()
    assert cfg.use_host_network is False
    assert cfg.enable_auto_lint is False
    assert cfg.initialize_plugins is True
    assert cfg.keep_runtime_alive is False
    assert cfg.rm_all_containers is False
    assert cfg.volumes is None
    assert cfg.selected_repo is None
    assert cfg.remote_runtime_api_url == "http://localhost:8000"
    assert cfg.local_runtime_url == "http://localhost"
    assert cfg.close_delay == 3600
    assert cfg.enable_gpu is False
    assert cfg.pause_closed_runtimes is True
    assert cfg.remote_runtime_init_timeout == 180
    assert cfg.remote_runtime_api_timeout == 180
    assert cfg.remote_runtime_enable_retries is True
    assert cfg.remote_runtime_resource_factor == 1
    assert cfg.additional_networks == []
    assert cfg.runtime_binding_address == "0.0.0.0"
    assert cfg.runtime_startup_env_vars == {}
    assert cfg.trusted_dirs == []
    assert cfg.vscode_port is None
    assert cfg.cuda_visible_devices is None


def test_sandbox_null_base_image_means_default() -> None:
    assert SandboxConfig(base_container_image=None).base_container_image == (  # type: ignore[arg-type]
        "nikolaik/python-nodejs:python3.12-nodejs22"
    )


def test_sandbox_resource_factor_is_restricted() -> None:
    assert SandboxConfig(remote_runtime_resource_factor=8).remote_runtime_resource_factor == 8
    with pytest.raises(ValidationError):
        SandboxConfig(remote_runtime_resource_factor=3)  # type: ignore[arg-type]


def test_security_kubernetes_cli_defaults() -> None:
    assert SecurityConfig().confirmation_mode is False
    assert SecurityConfig().security_analyzer is None
    k8s = KubernetesConfig()
    assert k8s.namespace == "default"
    assert k8s.ingress_domain == "localhost"
    assert k8s.pvc_storage_size == "2Gi"
    assert k8s.resource_cpu_request == "1"
    assert k8s.resource_memory_request == "1Gi"
    assert k8s.resource_memory_limit == "2Gi"
    assert k8s.privileged is False
    assert k8s.image_pull_secret is None
    assert k8s.tolerations_yaml is None
    assert CLIConfig().vi_mode is False


def test_get_llm_config_falls_back_to_default() -> None:
    cfg = OpenHandsConfig()
    default = cfg.get_llm_config()
    assert cfg.llms == {"llm": default}
    assert cfg.get_llm_config("missing") is default
    named = LLMConfig(model="gpt-4o")
    cfg.set_llm_config(named, "gpt")
    assert cfg.get_llm_config("gpt") is named


def test_get_llm_config_from_agent_and_map() -> None:
    cfg = OpenHandsConfig()
    base_llm = LLMConfig(model="base-model")
    cheap_llm = LLMConfig(model="cheap-model")
    cfg.set_llm_config(base_llm)
    cfg.set_llm_config(cheap_llm, "cheap")
    cfg.set_agent_config(AgentConfig())
    cfg.set_agent_config(AgentConfig(llm_config="cheap"), "BrowsingAgent")
    cfg.set_agent_config(AgentConfig(llm_config="nonexistent"), "LocAgent")

    assert cfg.get_llm_config_from_agent() is base_llm
    assert cfg.get_llm_config_from_agent("BrowsingAgent") is cheap_llm
    assert cfg.get_llm_config_from_agent("LocAgent") is base_llm
    assert cfg.get_agent_to_llm_config_map() == {
        "agent": base_llm,
        "BrowsingAgent": cheap_llm,
        "LocAgent": base_llm,
    }
    assert set(cfg.get_agent_configs()) == {"agent", "BrowsingAgent", "LocAgent"}


def test_get_agent_config_unknown_name_gives_default() -> None:
    cfg = OpenHandsConfig()
    default = cfg.get_agent_config()
    assert cfg.get_agent_config("NoSuchAgent") is default
