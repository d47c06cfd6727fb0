"""The drop-in public API of `openhands.core.config` and `openhands.core.logger`
(python-api.md §5.1, §5.2; checklist items 11-14)."""

from __future__ import annotations

import argparse
import io
import json
import logging
import logging.config
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

import openhands.core.config as config_pkg
from openhands.core import logger as oh_logger
from openhands.core.config import (
    ExtendedConfig,
    MCPConfig,
    MCPSHTTPServerConfig,
    MCPSSEServerConfig,
    MCPStdioServerConfig,
    OpenHandsConfig,
    OpenHandsMCPConfig,
    OpenHandsMCPConfigImpl,
    get_cli_parser,
    get_evaluation_parser,
    get_field_info,
    get_headless_parser,
    get_llm_config_arg,
    get_llms_for_routing_config,
    get_model_routing_config_arg,
    get_parser,
    load_from_toml,
    parse_arguments,
    setup_config_from_args,
)
from openhands.core.exceptions import ConfigurationError
from openhands.core.logger import (
    ColoredFormatter,
    NoColorFormatter,
    OpenHandsLoggerAdapter,
    RollingLogger,
    get_uvicorn_json_log_config,
    json_formatter,
    json_log_handler,
    strip_ansi,
)

SPEC_CONFIG_EXPORTS = [
    "OH_DEFAULT_AGENT",
    "OH_MAX_ITERATIONS",
    "AgentConfig",
    "CLIConfig",
    "OpenHandsConfig",
    "MCPConfig",
    "LLMConfig",
    "SandboxConfig",
    "SecurityConfig",
    "ModelRoutingConfig",
    "ExtendedConfig",
    "load_openhands_config",
    "load_from_env",
    "load_from_toml",
    "finalize_config",
    "get_agent_config_arg",
    "get_llm_config_arg",
    "get_field_info",
    "get_cli_parser",
    "get_headless_parser",
    "get_evaluation_parser",
    "parse_arguments",
    "setup_config_from_args",
    "get_llms_for_routing_config",
    "get_model_routing_config_arg",
]


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_config_package_exports_the_spec_names() -> None:
    for name in SPEC_CONFIG_EXPORTS:
        assert name in config_pkg.__all__, name
        assert getattr(config_pkg, name) is not None
    assert config_pkg.OH_DEFAULT_AGENT == "CodeActAgent"
    assert config_pkg.OH_MAX_ITERATIONS == 500


# --- parsers (checklist 11) ------------------------------------------------------------------


def test_headless_parser_flags_and_defaults() -> None:
    parser = get_headless_parser()
    assert parser.description == "Run the agent via CLI"
    args = parser.parse_args(["-c", "CodeActAgent", "-i", "5"])
    assert args.agent_cls == "CodeActAgent"
    assert args.max_iterations == 5
    defaults = vars(parser.parse_args([]))
    expected = {
        "config_file": "config.toml",
        "task": "",
        "file": None,
        "name": "",
        "log_level": None,
        "llm_config": None,
        "agent_config": None,
        "version": False,
        "directory": None,
        "agent_cls": None,
        "max_iterations": None,
        "max_budget_per_task": None,
        "no_auto_continue": False,
        "selected_repo": None,
    }
    assert {key: defaults[key] for key in expected} == expected
    args = parser.parse_args(["-b", "1.25", "--no-auto-continue", "-d", "/w", "-v"])
    assert args.max_budget_per_task == 1.25
    assert args.no_auto_continue is True
    assert args.directory == "/w"
    assert args.version is True


def test_get_parser_is_the_headless_parser() -> None:
    assert get_parser is get_headless_parser


def test_evaluation_parser_adds_eval_flags() -> None:
    args = get_evaluation_parser().parse_args([])
    assert args.eval_num_workers == 4
    assert args.eval_output_dir == "evaluation/evaluation_outputs/outputs"
    assert args.eval_n_limit is None
    assert args.eval_note is None
    assert args.eval_ids is None
    assert args.agent_cls is None  # the headless flags are there too
    args = get_evaluation_parser().parse_args(
        ["--eval-n-limit", "3", "--eval-num-workers", "8", "--eval-ids", "a,b", "-i", "2"]
    )
    assert (args.eval_n_limit, args.eval_num_workers, args.eval_ids) == (3, 8, "a,b")
    assert args.max_iterations == 2


def test_cli_parser_commands() -> None:
    parser = get_cli_parser()
    assert parser.prog == "openhands"
    serve = parser.parse_args(["serve", "--mount-cwd", "--gpu"])
    assert (serve.command, serve.mount_cwd, serve.gpu) == ("serve", True, True)
    cli = parser.parse_args(["cli", "-t", "fix it", "-l", "gpt", "--agent-config", "A"])
    assert (cli.command, cli.task, cli.llm_config, cli.agent_config) == (
        "cli",
        "fix it",
        "gpt",
        "A",
    )
    assert cli.config_file == "config.toml"
    assert cli.override_cli_mode is False
    assert cli.conversation is None
    assert cli.version is False
    assert not hasattr(cli, "agent_cls")  # headless-only flags are not on `cli`


@pytest.mark.parametrize(
    ("value", "expected"), [("true", True), ("1", True), ("false", False), ("0", False)]
)
def test_cli_override_mode_reads_false_as_false(value: str, expected: bool) -> None:
    args = get_cli_parser().parse_args(["cli", "--override-cli-mode", value])
    assert args.override_cli_mode is expected


def test_cli_conversation_before_or_after_the_command() -> None:
    parser = get_cli_parser()
    assert parser.parse_args(["--conversation", "abc", "cli"]).conversation == "abc"
    assert parser.parse_args(["cli", "--conversation", "abc"]).conversation == "abc"


def test_parse_arguments_reads_sys_argv(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["openhands.core.main", "-t", "hi", "-i", "7"])
    args = parse_arguments()
    assert (args.task, args.max_iterations) == ("hi", 7)


def test_setup_config_from_args_applies_the_run_flags(tmp_path: Path) -> None:
    toml = write(tmp_path / "c.toml", "[core]\nfile_store = 'memory'\nmax_iterations = 10\n")
    args = get_evaluation_parser().parse_args(
        ["--config-file", toml, "-c", "LocAgent", "-i", "3", "-b", "0.5", "--selected-repo", "o/r"]
    )
    config = setup_config_from_args(args)
    assert config.default_agent == "LocAgent"
    assert config.max_iterations == 3
    assert config.max_budget_per_task == 0.5
    assert config.sandbox.selected_repo == "o/r"
    # A namespace without the headless flags (the `cli` command's) changes nothing.
    plain = setup_config_from_args(argparse.Namespace(config_file=toml))
    assert plain.max_iterations == 10


def test_missing_llm_config_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    toml = write(tmp_path / "c.toml", "[core]\nfile_store = 'memory'\n")
    args = parse_arguments(["--config-file", toml, "-l", "ghost"])
    with pytest.raises(
        ValueError, match="Cannot find LLM configuration 'ghost' in any config file"
    ):
        setup_config_from_args(args)


# --- named sections -------------------------------------------------------------------------


def test_get_llm_config_arg_accepts_both_spellings(tmp_path: Path) -> None:
    toml = write(tmp_path / "c.toml", '[llm.llama3]\nmodel = "ollama/llama3"\n')
    for spelling in ("llama3", "[llm.llama3]"):
        llm = get_llm_config_arg(spelling, toml)
        assert llm is not None and llm.model == "ollama/llama3"
    assert get_llm_config_arg("absent", toml) is None


def test_model_routing_from_a_file(tmp_path: Path) -> None:
    toml = write(
        tmp_path / "c.toml",
        '[llm]\nmodel = "main"\n[llm.vision]\nmodel = "v"\nfor_routing = true\n'
        '[llm.other]\nmodel = "o"\n[model_routing]\nrouter_name = "multimodal_router"\n',
    )
    assert list(get_llms_for_routing_config(toml)) == ["vision"]
    routing = get_model_routing_config_arg(toml)
    assert routing.router_name == "multimodal_router"
    assert routing.llms_for_routing["vision"].model == "v"
    assert get_model_routing_config_arg(str(tmp_path / "absent.toml")).router_name == "noop_router"


# --- defaults_dict --------------------------------------------------------------------------


def test_defaults_dict_is_filled_by_the_first_instance(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(OpenHandsConfig, "defaults_dict", {})
    OpenHandsConfig(max_iterations=7)
    defaults = OpenHandsConfig.defaults_dict
    assert defaults["max_iterations"] == {"type": "int", "optional": False, "default": 500}
    assert defaults["max_budget_per_task"] == {"type": "float", "optional": True, "default": None}
    assert defaults["runtime"] == {"type": "str", "optional": False, "default": "docker"}
    assert defaults["sandbox"]["timeout"] == {"type": "int", "optional": False, "default": 120}
    assert defaults["mcp"]["sse_servers"]["type"] == "list"
    first = defaults
    OpenHandsConfig(runtime="local")
    assert OpenHandsConfig.defaults_dict is first


def test_get_field_info() -> None:
    info = get_field_info(OpenHandsConfig.model_fields["search_api_key"])
    assert info == {"type": "secretstr", "optional": True, "default": None}


# --- ExtendedConfig (checklist 12) -----------------------------------------------------------


def test_extended_config_is_a_dict_with_attribute_access() -> None:
    extended = ExtendedConfig.from_dict({"a": 1, "b": "x"})
    assert extended.root == {"a": 1, "b": "x"}
    assert extended.a == 1
    assert extended["a"] == 1
    assert str(extended) == "ExtendedConfig(a=1, b='x')"
    assert extended.model_dump() == {"a": 1, "b": "x"}
    with pytest.raises(AttributeError, match="'ExtendedConfig' object has no attribute 'zz'"):
        _ = extended.zz
    with pytest.raises(KeyError):
        _ = extended["zz"]
    assert ExtendedConfig().root == {}


def test_extended_sections_load(tmp_path: Path) -> None:
    toml = write(tmp_path / "c.toml", '[extended]\nteam = "core"\n[agent]\nextended = { k = 2 }\n')
    config = OpenHandsConfig()
    load_from_toml(config, toml)
    assert isinstance(config.extended, ExtendedConfig)
    assert config.extended.team == "core"
    assert config.get_agent_config().extended["k"] == 2


# --- MCP (checklist 13) ---------------------------------------------------------------------


def test_duplicate_sse_urls_fail_validate_servers() -> None:
    server = MCPSSEServerConfig(url="http://x/sse")
    config = MCPConfig(sse_servers=[server, server])
    with pytest.raises(ValueError, match=r"^Duplicate MCP server URLs are not allowed$"):
        config.validate_servers()
    MCPConfig(sse_servers=[server]).validate_servers()


def test_validate_servers_rejects_a_url_without_host() -> None:
    unchecked = MCPSSEServerConfig.model_construct(url="localhost")
    with pytest.raises(ValueError, match=r"^Invalid URL"):
        MCPConfig.model_construct(sse_servers=[unchecked]).validate_servers()


def test_shttp_timeout_may_be_none() -> None:
    assert MCPSHTTPServerConfig(url="http://x", timeout=None).timeout is None


def test_from_toml_section() -> None:
    result = MCPConfig.from_toml_section(
        {
            "sse_servers": ["http://a/sse", {"url": "http://b/sse", "api_key": "k"}],
            "stdio_servers": [{"name": "fs", "command": "npx", "args": "-y fs"}],
            "shttp_servers": [{"url": "http://c/mcp", "timeout": None}],
        }
    )
    assert list(result) == ["mcp"]
    mcp = result["mcp"]
    assert [s.url for s in mcp.sse_servers] == ["http://a/sse", "http://b/sse"]
    assert mcp.stdio_servers[0].args == ["-y", "fs"]
    assert mcp.shttp_servers[0].timeout is None
    with pytest.raises(ValueError, match=r"^Invalid MCP configuration: "):
        MCPConfig.from_toml_section({"shttp_servers": [{"url": "http://c", "timeout": 0}]})
    with pytest.raises(ValueError, match="Duplicate"):
        MCPConfig.from_toml_section({"sse_servers": ["http://a/sse", "http://a/sse"]})


def test_config_file_with_duplicate_sse_servers_is_an_error(tmp_path: Path) -> None:
    toml = write(tmp_path / "c.toml", '[mcp]\nsse_servers = ["http://a/sse", "http://a/sse"]\n')
    with pytest.raises(ConfigurationError, match="Duplicate MCP server URLs"):
        load_from_toml(OpenHandsConfig(), toml)


def test_mcp_merge_concatenates() -> None:
    first = MCPConfig(
        sse_servers=[MCPSSEServerConfig(url="http://a")],
        stdio_servers=[MCPStdioServerConfig(name="one", command="x")],
    )
    second = MCPConfig(
        sse_servers=[MCPSSEServerConfig(url="http://b")],
        shttp_servers=[MCPSHTTPServerConfig(url="http://c")],
    )
    merged = first.merge(second)
    assert [s.url for s in merged.sse_servers] == ["http://a", "http://b"]
    assert [s.name for s in merged.stdio_servers] == ["one"]
    assert [s.url for s in merged.shttp_servers] == ["http://c"]
    assert [s.url for s in first.sse_servers] == ["http://a"]  # inputs unchanged


def test_stdio_server_parses_strings() -> None:
    server = MCPStdioServerConfig.model_validate(
        {"name": "t", "command": "uvx", "args": "--from 'a b' tool", "env": "A=1, B_2=x=y"}
    )
    assert server.args == ["--from", "a b", "tool"]
    assert server.env == {"A": "1", "B_2": "x=y"}
    empty = MCPStdioServerConfig.model_validate(
        {"name": "t", "command": "x", "args": "", "env": ""}
    )
    assert (empty.args, empty.env) == ([], {})
    with pytest.raises(ValueError, match="Invalid environment variable name"):
        MCPStdioServerConfig.model_validate({"name": "t", "command": "x", "env": "1A=2"})


def test_openhands_mcp_config_default_servers() -> None:
    assert OpenHandsMCPConfigImpl is OpenHandsMCPConfig  # no OPENHANDS_MCP_CONFIG_CLS here
    config = OpenHandsConfig()
    assert OpenHandsMCPConfig.add_search_engine(config) is None
    shttp, stdio = OpenHandsMCPConfig.create_default_mcp_server_config("localhost:3000", config)
    assert shttp is not None and shttp.url == "http://localhost:3000/mcp/mcp"
    assert stdio == []

    config.search_api_key = SecretStr("tvly-abc")
    search = OpenHandsMCPConfig.add_search_engine(config)
    assert search is not None and search.env == {"TAVILY_API_KEY": "tvly-abc"}
    _, stdio = OpenHandsMCPConfig.create_default_mcp_server_config("h:1", config, user_id="u")
    assert [s.name for s in stdio] == ["tavily"]


def _python(code: str, env: dict[str, str], cwd: Path | None = None) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return result.stdout


def test_mcp_config_class_from_env(tmp_path: Path) -> None:
    write(
        tmp_path / "my_mcp_ext.py",
        "from openhands.core.config.mcp_config import OpenHandsMCPConfig\n"
        "class Custom(OpenHandsMCPConfig):\n"
        "    @staticmethod\n"
        "    def add_search_engine(app_config):\n"
        "        return None\n",
    )
    code = (
        "from openhands.core.config import OpenHandsMCPConfigImpl as I\n"
        "print(I.__module__, I.__name__)\n"
    )
    repo_root = Path(__file__).resolve().parents[3]
    out = _python(
        code,
        {
            "OPENHANDS_MCP_CONFIG_CLS": "my_mcp_ext.Custom",
            "PYTHONPATH": os.pathsep.join([str(tmp_path), str(repo_root)]),
        },
    )
    assert out.split() == ["my_mcp_ext", "Custom"]


# --- logger (checklist 14) ------------------------------------------------------------------


@pytest.fixture
def json_logger() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    buffer = io.StringIO()
    logger = logging.getLogger("openhands.test_public_api_json")
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    handler = json_log_handler(_out=buffer)
    logger.addHandler(handler)
    yield logger, buffer
    logger.removeHandler(handler)


def _records(buffer: io.StringIO) -> list[dict[str, Any]]:
    lines = buffer.getvalue().splitlines()
    records = [json.loads(line) for line in lines]
    for record in records:
        assert record.pop("timestamp")
    return records


def test_json_log_handler_writes_one_object_per_record(
    json_logger: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, buffer = json_logger
    logger.info("first %s", "message")
    logger.error("second", extra={"key": "..value.."})
    logger.debug("below the handler's INFO level")
    assert _records(buffer) == [
        {"message": "first message", oh_logger.LOG_JSON_LEVEL_KEY: "INFO"},
        {"message": "second", oh_logger.LOG_JSON_LEVEL_KEY: "ERROR", "key": "..value.."},
    ]


def test_json_log_handler_masks_secrets(
    json_logger: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, buffer = json_logger
    oh_logger.register_secret("sk-json-secret-123")
    try:
        logger.info("key sk-json-secret-123")
    finally:
        oh_logger.unregister_secret("sk-json-secret-123")
    assert "sk-json-secret-123" not in buffer.getvalue()


def test_adapter_merges_call_extra_over_its_own(
    json_logger: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, buffer = json_logger
    adapter = OpenHandsLoggerAdapter(logger, extra={"override": "a", "key": "value"})
    adapter.info("hello", extra={"override": "b"})
    adapter.info("again")
    assert _records(buffer) == [
        {"message": "hello", "level": "INFO", "key": "value", "override": "b"},
        {"message": "again", "level": "INFO", "key": "value", "override": "a"},
    ]
    assert OpenHandsLoggerAdapter().logger is oh_logger.openhands_logger


def test_json_formatter_level_key() -> None:
    record = logging.makeLogRecord({"msg": "m", "levelname": "WARNING", "session_id": "s"})
    payload = json.loads(json_formatter().format(record))
    assert payload["message"] == "m"
    assert payload[oh_logger.LOG_JSON_LEVEL_KEY] == "WARNING"
    assert payload["session_id"] == "s"
    assert "timestamp" in payload


def test_env_flags_of_the_logger() -> None:
    code = (
        "import io, json\n"
        "from openhands.core import logger as l\n"
        "buf = io.StringIO()\n"
        "h = l.json_log_handler(_out=buf)\n"
        "l.openhands_logger.addHandler(h)\n"
        "l.openhands_logger.warning('w')\n"
        "print(l.LOG_JSON_LEVEL_KEY, l.DEBUG_RUNTIME, json.loads(buf.getvalue())['severity'])\n"
    )
    out = _python(code, {"LOG_JSON_LEVEL_KEY": "severity", "DEBUG_RUNTIME": "true"})
    assert out.split() == ["severity", "True", "WARNING"]


UVICORN_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access")


@pytest.fixture
def restore_uvicorn_loggers() -> Iterator[None]:
    saved = {}
    for name in UVICORN_LOGGERS:
        lg = logging.getLogger(name)
        saved[name] = (list(lg.handlers), lg.level, lg.propagate, lg.disabled)
    yield
    for name, (handlers, level, propagate, disabled) in saved.items():
        lg = logging.getLogger(name)
        lg.handlers[:] = handlers
        lg.setLevel(level)
        lg.propagate = propagate
        lg.disabled = disabled


@pytest.mark.usefixtures("restore_uvicorn_loggers")
def test_uvicorn_json_log_config(capsys: pytest.CaptureFixture[str]) -> None:
    logging.config.dictConfig(get_uvicorn_json_log_config())
    logging.getLogger("uvicorn.error").info("Started server process [%d]", 42)
    logging.getLogger("uvicorn.access").info(
        '%s - "%s %s HTTP/%s" %d', "127.0.0.1:5", "GET", "/api/x", "1.1", 200
    )
    lines = capsys.readouterr().out.splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["message"] for r in records] == [
        "Started server process [42]",
        '127.0.0.1:5 - "GET /api/x HTTP/1.1" 200',
    ]
    assert all(r[oh_logger.LOG_JSON_LEVEL_KEY] == "INFO" for r in records)


def test_strip_ansi_and_formatters() -> None:
    assert strip_ansi("\x1b[31mred\x1b[0m plain \x1b[2K") == "red plain "
    record = logging.makeLogRecord(
        {"name": "openhands", "levelno": logging.ERROR, "levelname": "ERROR", "msg": "\x1b[1mb"}
    )
    assert "\x1b" not in NoColorFormatter().format(record)
    assert NoColorFormatter().format(record).endswith("ERROR - openhands::0 - b")
    colored = ColoredFormatter().format(record)
    assert "\x1b[31mERROR\x1b[0m" in colored
    record.msg_type = "ACTION"
    assert ColoredFormatter().format(record).startswith("\x1b[31mACTION\x1b[0m ")


def test_rolling_logger_keeps_the_last_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    rolling = RollingLogger(max_lines=2, char_limit=5)
    assert rolling.is_enabled() is False  # not a terminal
    rolling.start("Building")
    for line in ("one", "two", "three-long-line"):
        rolling.add_line(line)
    assert rolling.log_lines == ["two", "three"]
    assert rolling.all_lines == "one\ntwo\nthree-long-line\n"
    text = out.getvalue()
    assert text.startswith("Building\n\n\n")
    assert text.endswith("\x1b[F\x1b[F\x1b[2Ktwo\n\x1b[2Kthree\n")
    rolling.write_immediately("done")
    assert out.getvalue().endswith("done")
