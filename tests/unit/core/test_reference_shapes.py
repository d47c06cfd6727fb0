"""Messages, flags and call shapes of openhands.core that users and scripts observe."""

from __future__ import annotations

import argparse
import logging
from io import StringIO
from pathlib import Path

import pytest
from pydantic import ValidationError

from openhands.core import logger as oh_logger
from openhands.core.config import OpenHandsConfig, get_headless_parser, load_from_toml
from openhands.core.config.mcp_config import MCPSSEServerConfig, MCPStdioServerConfig
from openhands.core.config.utils import setup_config_from_args
from openhands.core.message import ImageContent, Message, TextContent


def _toml(tmp_path: Path, text: str) -> str:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("section", ["sandbox", "security"])
def test_bad_section_error_names_the_section(tmp_path: Path, section: str) -> None:
    path = _toml(tmp_path, f"[{section}]\nnot_a_field = 1\n")
    with pytest.raises(ValueError, match=rf"^Error in \[{section}\] section in config.toml"):
        load_from_toml(OpenHandsConfig(), path)


def test_invalid_llm_base_section_warns_and_keeps_defaults(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = _toml(tmp_path, '[llm]\nnum_retries = "many"\n')
    config = OpenHandsConfig()
    with caplog.at_level(logging.WARNING, logger="openhands"):
        load_from_toml(config, path)
    assert "Cannot parse [llm] config from toml" in caplog.text
    assert config.get_llm_config().num_retries == 5


def test_replay_flag_works_but_is_not_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    parser = get_headless_parser()
    assert (
        parser.parse_args(["--replay-trajectory-path", "t.json"]).replay_trajectory_path == "t.json"
    )
    with pytest.raises(SystemExit):
        parser.parse_args(["--help"])
    help_text = capsys.readouterr().out
    assert "replay" not in help_text
    assert help_text.count("  -") == 15


def test_setup_from_args_applies_only_values_of_the_right_type(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loaded = OpenHandsConfig()
    monkeypatch.setattr("openhands.core.config.utils.load_openhands_config", lambda **_: loaded)
    args = argparse.Namespace(
        config_file=None,
        llm_config=None,
        agent_cls=object(),  # e.g. a mock attribute
        max_iterations=7,
        max_budget_per_task=None,
        selected_repo=object(),
        replay_trajectory_path=object(),
    )
    config = setup_config_from_args(args)
    assert config.max_iterations == 7
    assert config.default_agent == "CodeActAgent"
    assert config.sandbox.selected_repo is None and config.replay_trajectory_path is None


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("not_a_url", "URL must include a scheme"),
        ("http://", "URL must include a valid domain/host"),
        ("ftp://host/x", "URL scheme must be http, https, ws, or wss"),
    ],
)
def test_mcp_url_errors(url: str, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        MCPSSEServerConfig(url=url)


def test_mcp_stdio_args_string_with_bad_quotes() -> None:
    assert MCPStdioServerConfig(name="s", command="python", args='-m "a b"').args == ["-m", "a b"]
    with pytest.raises(ValidationError, match="Invalid argument format"):
        MCPStdioServerConfig(name="s", command="python", args='--config "open')


def test_log_filter_masks_key_assignments() -> None:
    stream = StringIO()
    handler = logging.StreamHandler(stream)
    oh_logger.openhands_logger.addHandler(handler)
    try:
        oh_logger.openhands_logger.warning(
            "cfg api_key='sk-live-0042' AWS_SECRET_ACCESS_KEY=ab/cd+ef x=1"
        )
    finally:
        oh_logger.openhands_logger.removeHandler(handler)
    text = stream.getvalue()
    assert "sk-live-0042" not in text and "ab/cd+ef" not in text
    assert "api_key='******'" in text and "x=1" in text


def test_uvicorn_config_keeps_litellm_loggers_silent() -> None:
    loggers = oh_logger.get_uvicorn_json_log_config()["loggers"]
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy"):
        assert loggers[name] == {"handlers": [], "level": "CRITICAL", "propagate": False}


def test_serialize_model_is_the_llm_form() -> None:
    message = Message(
        role="user",
        content=[TextContent(text="a"), ImageContent(image_urls=["u"]), TextContent(text="b")],
        vision_enabled=False,
    )
    assert message.serialize_model() == {"role": "user", "content": "a\nb"}
    assert TextContent(text="t").serialize_model() == {"type": "text", "text": "t"}
    assert ImageContent(image_urls=["u"]).serialize_model() == [
        {"type": "image_url", "image_url": {"url": "u"}}
    ]
