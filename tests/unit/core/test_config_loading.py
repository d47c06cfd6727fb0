"""config.toml → env → finalize → CLI (spec agent.md §9.2–9.4)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest
from pydantic import SecretStr

from openhands.core.config import (
    AgentConfig,
    ConversationWindowCondenserConfig,
    LLMSummarizingCondenserConfig,
    NoOpCondenserConfig,
    OpenHandsConfig,
    RecentEventsCondenserConfig,
    finalize_config,
    get_agent_config_arg,
    get_condenser_config_arg,
    get_llm_config_arg,
    load_from_toml,
    load_openhands_config,
    parse_arguments,
    register_agent_config_model,
    setup_config_from_args,
)
from openhands.core.config.agent_config import _agent_config_models
from openhands.core.exceptions import ConfigurationError

_PREFIXES = ("LLM_", "AGENT_", "SANDBOX_", "SECURITY_", "MCP_", "KUBERNETES_", "CONDENSER_", "CLI_")
_EXPORTED_ENV = (
    "OR_SITE_URL",
    "OR_APP_NAME",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_REGION_NAME",
)


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No config-related env vars, cwd and file store in tmp_path."""
    root_names = {name.upper() for name in OpenHandsConfig.model_fields}
    for name in list(os.environ):
        if name.startswith(_PREFIXES) or name in root_names:
            monkeypatch.delenv(name)
    for name in _EXPORTED_ENV:
        monkeypatch.setenv(name, "placeholder")
        monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FILE_STORE_PATH", str(tmp_path / "store"))
    monkeypatch.setenv("CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


# --- TOML ------------------------------------------------------------------------------------


def test_missing_file_changes_nothing(tmp_path: Path) -> None:
    cfg = OpenHandsConfig()
    load_from_toml(cfg, str(tmp_path / "nope.toml"))
    assert cfg == OpenHandsConfig()


def test_core_keys_are_applied(tmp_path: Path) -> None:
    toml = write(
        tmp_path / "c.toml",
        """
[core]
max_iterations = 42
runtime = "local"
search_api_key = "tvly-abc"
file_uploads_allowed_extensions = [".py"]
""",
    )
    cfg = OpenHandsConfig()
    load_from_toml(cfg, toml)
    assert cfg.max_iterations == 42
    assert cfg.runtime == "local"
    assert isinstance(cfg.search_api_key, SecretStr)
    assert cfg.search_api_key.get_secret_value() == "tvly-abc"
    assert cfg.file_uploads_allowed_extensions == [".py"]


def test_unknown_core_key_warns(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    toml = write(tmp_path / "c.toml", "[core]\nnot_a_setting = 1\nmax_iterations = 3\n")
    cfg = OpenHandsConfig()
    with caplog.at_level(logging.WARNING, logger="openhands"):
        load_from_toml(cfg, toml)
    assert "not_a_setting" in caplog.text
    assert cfg.max_iterations == 3


def test_invalid_core_value_names_the_key(tmp_path: Path) -> None:
    toml = write(tmp_path / "c.toml", '[core]\nmax_iterations = "many"\n')
    with pytest.raises(ConfigurationError, match="max_iterations"):
        load_from_toml(OpenHandsConfig(), toml)


def test_named_llm_inherits_from_base(tmp_path: Path) -> None:
    toml = write(
        tmp_path / "c.toml",
        """
[llm]
model = "base-model"
api_key = "base-key"
temperature = 0.5

[llm.cheap]
model = "cheap-model"

[llm.broken]
no_such_key = 1
""",
    )
    cfg = OpenHandsConfig()
    load_from_toml(cfg, toml)
    base = cfg.get_llm_config()
    cheap = cfg.get_llm_config("cheap")
    assert base.model == "base-model"
    assert cheap.model == "cheap-model"
    assert cheap.temperature == 0.5
    assert cheap.api_key is not None and cheap.api_key.get_secret_value() == "base-key"
    assert "broken" not in cfg.llms


def test_invalid_llm_base_falls_back_to_defaults(tmp_path: Path) -> None:
    toml = write(tmp_path / "c.toml", '[llm]\ntemperature = "hot"\n[llm.x]\nmodel = "x"\n')
    cfg = OpenHandsConfig()
    load_from_toml(cfg, toml)
    assert cfg.get_llm_config().model == "claude-sonnet-4-20250514"
    assert cfg.get_llm_config("x").model == "x"


def test_named_agent_inherits_from_base(tmp_path: Path) -> None:
    toml = write(
        tmp_path / "c.toml",
        """
[agent]
enable_browsing = false
llm_config = "cheap"

[agent.BrowsingAgent]
enable_jupyter = false

[agent.Broken]
enable_jupyter = "not-a-bool"
""",
    )
    cfg = OpenHandsConfig()
    load_from_toml(cfg, toml)
    base = cfg.get_agent_config()
    browsing = cfg.get_agent_config("BrowsingAgent")
    assert base.enable_browsing is False
    assert browsing.enable_browsing is False
    assert browsing.enable_jupyter is False
    assert browsing.llm_config == "cheap"
    assert "Broken" not in cfg.agents


class _ExtraAgentConfig(AgentConfig):
    extra_knob: int = 7


def test_registered_agent_config_model_is_used(tmp_path: Path) -> None:
    register_agent_config_model("KnobAgent", _ExtraAgentConfig)
    try:
        toml = write(tmp_path / "c.toml", "[agent.KnobAgent]\nextra_knob = 9\n")
        cfg = OpenHandsConfig()
        load_from_toml(cfg, toml)
        knob = cfg.get_agent_config("KnobAgent")
        assert isinstance(knob, _ExtraAgentConfig)
        assert knob.extra_knob == 9
    finally:
        _agent_config_models.pop("KnobAgent", None)


def test_agent_classpath_config_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(
        tmp_path / "my_custom_agent_mod.py",
        "from openhands.core.config import AgentConfig\n"
        "class MyConfig(AgentConfig):\n    flavour: str = 'plain'\n"
        "class MyAgent:\n    config_model = MyConfig\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    toml = write(
        tmp_path / "c.toml",
        '[agent.MyAgent]\nclasspath = "my_custom_agent_mod:MyAgent"\nflavour = "spicy"\n',
    )
    cfg = OpenHandsConfig()
    load_from_toml(cfg, toml)
    assert cfg.get_agent_config("MyAgent").flavour == "spicy"  # type: ignore[attr-defined]


@pytest.mark.parametrize("section", ["sandbox", "security", "mcp", "kubernetes"])
def test_unknown_key_in_strict_section_is_an_error(tmp_path: Path, section: str) -> None:
    toml = write(tmp_path / "c.toml", f"[{section}]\nmystery_key = 1\n")
    with pytest.raises(ConfigurationError, match=rf"\[{section}\].*mystery_key"):
        load_from_toml(OpenHandsConfig(), toml)


def test_invalid_value_in_strict_section_is_an_error(tmp_path: Path) -> None:
    toml = write(tmp_path / "c.toml", '[sandbox]\ntimeout = "soon"\n')
    with pytest.raises(ValueError, match="sandbox"):
        load_from_toml(OpenHandsConfig(), toml)


def test_strict_sections_are_applied(tmp_path: Path) -> None:
    toml = write(
        tmp_path / "c.toml",
        """
[sandbox]
timeout = 30
volumes = "/a:/b"
[security]
confirmation_mode = true
security_analyzer = "llm"
[mcp]
sse_servers = ["http://localhost:9000/sse"]
[kubernetes]
namespace = "oh"
[cli]
vi_mode = true
[extended]
anything = { nested = 1 }
""",
    )
    cfg = OpenHandsConfig()
    load_from_toml(cfg, toml)
    assert cfg.sandbox.timeout == 30
    assert cfg.sandbox.volumes == "/a:/b"
    assert cfg.security.confirmation_mode is True
    assert cfg.security.security_analyzer == "llm"
    assert cfg.mcp.sse_servers[0].url == "http://localhost:9000/sse"
    assert cfg.kubernetes.namespace == "oh"
    assert cfg.cli.vi_mode is True
    assert cfg.extended["anything"] == {"nested": 1}
    assert cfg.extended.anything == {"nested": 1}  # type: ignore[attr-defined]


def test_unknown_section_warns(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    toml = write(tmp_path / "c.toml", "[core]\n[weird]\nx = 1\n")
    with caplog.at_level(logging.WARNING, logger="openhands"):
        load_from_toml(OpenHandsConfig(), toml)
    assert "[weird]" in caplog.text


def test_broken_toml_is_skipped_with_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    toml = write(tmp_path / "c.toml", "[core\nmax_iterations = \n")
    cfg = OpenHandsConfig()
    with caplog.at_level(logging.WARNING, logger="openhands"):
        load_from_toml(cfg, toml)
    assert cfg == OpenHandsConfig()
    assert "Cannot read config file" in caplog.text


# --- condenser -----------------------------------------------------------------------------


def test_default_condenser_without_config_file(tmp_path: Path) -> None:
    cfg = load_openhands_config(config_file=str(tmp_path / "absent.toml"))
    assert isinstance(cfg.get_agent_config().condenser, ConversationWindowCondenserConfig)


def test_default_condenser_with_config_file_but_no_section(tmp_path: Path) -> None:
    toml = write(tmp_path / "c.toml", '[core]\n[llm]\nmodel = "summary-model"\n')
    cfg = OpenHandsConfig()
    load_from_toml(cfg, toml)
    condenser = cfg.get_agent_config().condenser
    assert isinstance(condenser, LLMSummarizingCondenserConfig)
    assert condenser.llm_config.model == "summary-model"
    assert (condenser.keep_first, condenser.max_size) == (1, 100)


def test_default_condenser_disabled(tmp_path: Path) -> None:
    toml = write(tmp_path / "c.toml", "[core]\nenable_default_condenser = false\n")
    cfg = OpenHandsConfig()
    load_from_toml(cfg, toml)
    assert isinstance(cfg.get_agent_config().condenser, ConversationWindowCondenserConfig)


def test_condenser_section_resolves_llm_name(tmp_path: Path) -> None:
    toml = write(
        tmp_path / "c.toml",
        """
[llm]
model = "base"
[llm.summarizer]
model = "small"
[condenser]
type = "llm"
llm_config = "summarizer"
keep_first = 2
max_size = 50
""",
    )
    cfg = OpenHandsConfig()
    load_from_toml(cfg, toml)
    condenser = cfg.get_agent_config().condenser
    assert isinstance(condenser, LLMSummarizingCondenserConfig)
    assert condenser.llm_config.model == "small"
    assert (condenser.keep_first, condenser.max_size) == (2, 50)


def test_condenser_missing_llm_name_means_no_condensing(tmp_path: Path) -> None:
    # python-api.md §4 (defect a3): NoOp, not the default [llm] model.
    toml = write(
        tmp_path / "c.toml",
        '[llm]\nmodel = "base"\n[condenser]\ntype = "llm_attention"\nllm_config = "ghost"\n',
    )
    cfg = OpenHandsConfig()
    load_from_toml(cfg, toml)
    assert isinstance(cfg.get_agent_config().condenser, NoOpCondenserConfig)


def test_condenser_type_defaults_to_noop(tmp_path: Path) -> None:
    toml = write(tmp_path / "c.toml", "[condenser]\n")
    cfg = OpenHandsConfig()
    load_from_toml(cfg, toml)
    assert isinstance(cfg.get_agent_config().condenser, NoOpCondenserConfig)


def test_invalid_condenser_becomes_noop(tmp_path: Path) -> None:
    toml = write(tmp_path / "c.toml", '[condenser]\ntype = "recent"\nmax_events = 0\n')
    cfg = OpenHandsConfig()
    load_from_toml(cfg, toml)
    assert isinstance(cfg.get_agent_config().condenser, NoOpCondenserConfig)


def test_condenser_assigned_to_default_agent_only(tmp_path: Path) -> None:
    toml = write(
        tmp_path / "c.toml",
        '[agent.BrowsingAgent]\nenable_jupyter = false\n[condenser]\ntype = "recent"\n',
    )
    cfg = OpenHandsConfig()
    load_from_toml(cfg, toml)
    assert isinstance(cfg.get_agent_config().condenser, RecentEventsCondenserConfig)
    assert isinstance(
        cfg.get_agent_config("BrowsingAgent").condenser, ConversationWindowCondenserConfig
    )


def test_model_routing_collects_routing_llms(tmp_path: Path) -> None:
    toml = write(
        tmp_path / "c.toml",
        """
[llm]
model = "primary"
[llm.secondary_model]
model = "secondary"
for_routing = true
[llm.other]
model = "other"
[model_routing]
router_name = "multimodal_router"
""",
    )
    cfg = OpenHandsConfig()
    load_from_toml(cfg, toml)
    routing = cfg.get_agent_config().model_routing
    assert routing.router_name == "multimodal_router"
    assert list(routing.llms_for_routing) == ["secondary_model"]
    assert routing.llms_for_routing["secondary_model"].model == "secondary"


# --- precedence and finalize -----------------------------------------------------------------


def test_env_wins_over_toml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    toml = write(
        tmp_path / "c.toml",
        """
[core]
max_iterations = 10
[llm]
model = "toml-model"
api_key = "toml-key"
[sandbox]
timeout = 30
[agent]
enable_browsing = true
""",
    )
    monkeypatch.setenv("MAX_ITERATIONS", "20")
    monkeypatch.setenv("LLM_API_KEY", "env-key")
    monkeypatch.setenv("SANDBOX_TIMEOUT", "99")
    monkeypatch.setenv("AGENT_ENABLE_BROWSING", "false")
    cfg = load_openhands_config(config_file=toml)
    assert cfg.max_iterations == 20
    llm = cfg.get_llm_config()
    assert llm.model == "toml-model"
    assert llm.api_key is not None and llm.api_key.get_secret_value() == "env-key"
    assert cfg.sandbox.timeout == 99
    assert cfg.get_agent_config().enable_browsing is False


def test_dotenv_file_is_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / ".env", "MAX_ITERATIONS=77\n")
    monkeypatch.setenv("MAX_ITERATIONS", "placeholder")
    monkeypatch.delenv("MAX_ITERATIONS")  # restored (removed) after the test
    cfg = load_openhands_config(config_file=str(tmp_path / "absent.toml"))
    assert cfg.max_iterations == 77


def test_volumes_set_the_workspace(tmp_path: Path) -> None:
    cfg = OpenHandsConfig(cache_dir=str(tmp_path / "cache"), file_store="memory")
    cfg.sandbox.volumes = f"{tmp_path}/data:/data:ro,{tmp_path}/ws:/workspace:rw"
    finalize_config(cfg)
    assert cfg.workspace_base == f"{tmp_path}/ws"
    assert cfg.workspace_mount_path == f"{tmp_path}/ws"
    assert cfg.workspace_mount_path_in_sandbox == "/workspace"


@pytest.mark.parametrize("volumes", ["/only-one-part", "/a:/b:ro:extra"])
def test_invalid_volumes_are_rejected(tmp_path: Path, volumes: str) -> None:
    cfg = OpenHandsConfig(cache_dir=str(tmp_path / "cache"), file_store="memory")
    cfg.sandbox.volumes = volumes
    with pytest.raises(ValueError, match=r"sandbox\.volumes"):
        finalize_config(cfg)


def test_deprecated_workspace_base(tmp_path: Path) -> None:
    cfg = OpenHandsConfig(
        cache_dir=str(tmp_path / "cache"), file_store="memory", workspace_base="ws"
    )
    finalize_config(cfg)
    assert cfg.workspace_base == str(tmp_path / "ws")
    assert cfg.workspace_mount_path == str(tmp_path / "ws")


def test_finalize_creates_cache_dir_and_leaves_the_jwt_secret_to_the_entry_points(
    tmp_path: Path,
) -> None:
    # Config loading knows no file stores: the server, headless run and terminal app make
    # the secret at start (openhands.storage.jwt_secret).
    store = tmp_path / "store"
    cfg = OpenHandsConfig(cache_dir=str(tmp_path / "c1"), file_store_path=str(store))
    finalize_config(cfg)
    assert (tmp_path / "c1").is_dir()
    assert cfg.jwt_secret is None
    assert not (store / ".jwt_secret").exists()


def test_cli_runtime_disables_jupyter_and_browsing(tmp_path: Path) -> None:
    cfg = OpenHandsConfig(cache_dir=str(tmp_path / "c"), file_store="memory", runtime="cli")
    cfg.set_agent_config(AgentConfig(), "ReadOnlyAgent")
    finalize_config(cfg)
    for agent_config in (cfg.get_agent_config(), cfg.get_agent_config("ReadOnlyAgent")):
        assert agent_config.enable_jupyter is False
        assert agent_config.enable_browsing is False


def test_sandbox_without_browser_offers_no_browsing_tool(tmp_path: Path) -> None:
    cfg = OpenHandsConfig(cache_dir=str(tmp_path / "c"), file_store="memory", enable_browser=False)
    cfg.set_agent_config(AgentConfig(), "ReadOnlyAgent")
    finalize_config(cfg)
    for agent_config in (cfg.get_agent_config(), cfg.get_agent_config("ReadOnlyAgent")):
        assert agent_config.enable_browsing is False
        assert agent_config.enable_jupyter is True
    with_browser = OpenHandsConfig(cache_dir=str(tmp_path / "c2"), file_store="memory")
    finalize_config(with_browser)
    assert with_browser.get_agent_config().enable_browsing is True


def test_loaded_secrets_are_masked_in_logs(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from openhands.core.logger import openhands_logger, unregister_secret

    toml = write(tmp_path / "c.toml", '[llm]\napi_key = "sk-from-the-toml-file"\n')
    load_openhands_config(config_file=toml)
    try:
        with caplog.at_level(logging.INFO, logger="openhands"):
            openhands_logger.info("calling with %s", "sk-from-the-toml-file")
        assert "sk-from-the-toml-file" not in caplog.text
        assert "******" in caplog.text
    finally:
        unregister_secret("sk-from-the-toml-file")


# --- named section lookups ---------------------------------------------------------------


NAMED_TOML = """
[llm]
model = "base"
api_key = "base-key"
[llm.gpt]
model = "gpt-4o"
[agent.CodeActAgent]
enable_browsing = false
[condenser.summary]
type = "llm"
llm_config = "gpt"
max_size = 60
[condenser.bad_llm]
type = "llm"
llm_config = "ghost"
[condenser.untyped]
max_size = 60
"""


def test_get_llm_config_arg_is_not_merged(tmp_path: Path) -> None:
    toml = write(tmp_path / "c.toml", NAMED_TOML)
    for name in ("gpt", "[gpt]", "llm.gpt", "[llm.gpt]"):
        llm = get_llm_config_arg(name, toml)
        assert llm is not None and llm.model == "gpt-4o"
        assert llm.api_key is None
    assert get_llm_config_arg("missing", toml) is None
    assert get_llm_config_arg("gpt", str(tmp_path / "absent.toml")) is None


def test_get_agent_config_arg(tmp_path: Path) -> None:
    toml = write(tmp_path / "c.toml", NAMED_TOML)
    agent = get_agent_config_arg("CodeActAgent", toml)
    assert agent is not None and agent.enable_browsing is False
    assert get_agent_config_arg("Nope", toml) is None


def test_get_condenser_config_arg(tmp_path: Path) -> None:
    toml = write(tmp_path / "c.toml", NAMED_TOML)
    condenser = get_condenser_config_arg("summary", toml)
    assert isinstance(condenser, LLMSummarizingCondenserConfig)
    assert condenser.llm_config.model == "gpt-4o"
    assert condenser.max_size == 60
    assert get_condenser_config_arg("bad_llm", toml) is None
    assert get_condenser_config_arg("untyped", toml) is None
    assert get_condenser_config_arg("absent", toml) is None


def test_named_condenser_sections_do_not_break_the_main_one(tmp_path: Path) -> None:
    toml = write(tmp_path / "c.toml", '[condenser]\ntype = "recent"\nmax_events = 7\n' + NAMED_TOML)
    cfg = OpenHandsConfig()
    load_from_toml(cfg, toml)
    condenser = cfg.get_agent_config().condenser
    assert isinstance(condenser, RecentEventsCondenserConfig)
    assert condenser.max_events == 7


# --- CLI ----------------------------------------------------------------------------------------


def test_cli_flags_win_over_env_and_toml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    toml = write(tmp_path / "c.toml", "[core]\nmax_iterations = 10\ndefault_agent = 'LocAgent'\n")
    monkeypatch.setenv("MAX_ITERATIONS", "20")
    args = parse_arguments(
        [
            "--config-file", toml,
            "-i", "30",
            "-b", "2.5",
            "-c", "ReadOnlyAgent",
            "--selected-repo", "octo/repo",
        ]
    )  # fmt: skip
    cfg = setup_config_from_args(args)
    assert cfg.max_iterations == 30
    assert cfg.max_budget_per_task == 2.5
    assert cfg.default_agent == "ReadOnlyAgent"
    assert cfg.sandbox.selected_repo == "octo/repo"


def test_cli_without_flags_keeps_toml_values(tmp_path: Path) -> None:
    toml = write(tmp_path / "c.toml", "[core]\nmax_iterations = 10\ndefault_agent = 'LocAgent'\n")
    cfg = setup_config_from_args(parse_arguments(["--config-file", toml]))
    assert cfg.max_iterations == 10
    assert cfg.default_agent == "LocAgent"


def test_cli_llm_config_from_loaded_configs_is_merged(tmp_path: Path) -> None:
    toml = write(tmp_path / "c.toml", NAMED_TOML)
    cfg = setup_config_from_args(parse_arguments(["--config-file", toml, "-l", "gpt"]))
    llm = cfg.get_llm_config()
    assert llm.model == "gpt-4o"
    assert llm.api_key is not None and llm.api_key.get_secret_value() == "base-key"


def test_cli_llm_config_missing_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    toml = write(tmp_path / "c.toml", NAMED_TOML)
    with pytest.raises(ValueError, match="ghost"):
        setup_config_from_args(parse_arguments(["--config-file", toml, "-l", "ghost"]))


def test_cli_llm_config_from_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    (home / ".openhands").mkdir(parents=True)
    write(home / ".openhands" / "config.toml", '[llm.personal]\nmodel = "my-model"\n')
    monkeypatch.setenv("HOME", str(home))
    cfg = setup_config_from_args(
        parse_arguments(["--config-file", str(tmp_path / "absent.toml"), "-l", "personal"])
    )
    assert cfg.get_llm_config().model == "my-model"


# --- custom agents ---------------------------------------------------------------------------


def test_config_loading_leaves_custom_agents_to_the_agent_builder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Registering is openhands.controller.agent.register_custom_agents, called where agents
    # are built: config sits below the agent registry.
    from openhands.controller.agent import Agent

    write(tmp_path / "my_registered_agent_mod.py", "class HelperAgent:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    toml = write(
        tmp_path / "c.toml",
        '[agent.HelperAgent]\nclasspath = "my_registered_agent_mod:HelperAgent"\n',
    )
    cfg = load_openhands_config(config_file=toml)
    assert cfg.get_agent_config("HelperAgent").classpath == "my_registered_agent_mod:HelperAgent"
    assert "HelperAgent" not in Agent.list_agents()
