"""The openhands logger: env-driven setup and secret masking."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from openhands.core.logger import (
    MASK,
    JsonFormatter,
    SensitiveDataFilter,
    is_secret_name,
    llm_prompt_logger,
    llm_response_logger,
    mask_secrets,
    openhands_logger,
    register_secret,
    unregister_secret,
)


@pytest.fixture
def secret() -> Iterator[str]:
    value = "sk-registered-abc123"
    register_secret(SecretStr(value))
    yield value
    unregister_secret(value)


def test_logger_name() -> None:
    assert openhands_logger.name == "openhands"


def test_registered_secret_is_masked(secret: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="openhands"):
        openhands_logger.info("using key %s for %s", secret, "the call")
    record = caplog.records[-1]
    assert secret not in record.getMessage()
    assert record.getMessage() == f"using key {MASK} for the call"
    assert secret not in caplog.text


def test_secret_env_vars_are_masked(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("MY_SERVICE_API_KEY", "env-secret-value-1")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_tokenvalue")
    monkeypatch.setenv("SOME_PLAIN_SETTING", "plain-visible-value")
    with caplog.at_level(logging.INFO, logger="openhands"):
        openhands_logger.info(
            "a=%s b=%s c=%s", "env-secret-value-1", "ghp_tokenvalue", "plain-visible-value"
        )
    text = caplog.records[-1].getMessage()
    assert "env-secret-value-1" not in text
    assert "ghp_tokenvalue" not in text
    assert "plain-visible-value" in text


def test_short_or_boolean_values_are_not_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FEATURE_TOKEN", "true")
    monkeypatch.setenv("OTHER_SECRET", "seven77")
    assert mask_secrets("value is true, seven77") == "value is true, seven77"
    monkeypatch.setenv("OTHER_SECRET", "eight888")
    assert mask_secrets("value is true, eight888") == f"value is true, {MASK}"


def test_secret_in_traceback_is_masked(secret: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="openhands"):
        try:
            raise RuntimeError(f"bad key {secret}")
        except RuntimeError:
            openhands_logger.exception("call failed")
    assert secret not in caplog.text
    assert "bad key" in caplog.text


def test_child_logger_output_is_masked(secret: str) -> None:
    # Records of child loggers pass through the openhands handlers, which mask them.
    lines: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(self.format(record))

    collector = Collect()
    collector.addFilter(SensitiveDataFilter())
    openhands_logger.addHandler(collector)
    try:
        logging.getLogger("openhands.some.module").warning("token=%s", secret)
    finally:
        openhands_logger.removeHandler(collector)
    assert lines == [f"token={MASK}"]


def test_is_secret_name() -> None:
    for name in (
        "LLM_API_KEY",
        "github_token",
        "JWT_SECRET",
        "DB_PASSWORD",
        "AWS_SECRET_ACCESS_KEY",
    ):
        assert is_secret_name(name)
    for name in ("PATH", "HOME", "LOG_LEVEL", "SANDBOX_TIMEOUT"):
        assert not is_secret_name(name)


def test_json_formatter() -> None:
    record = logging.makeLogRecord(
        {
            "name": "openhands",
            "levelname": "INFO",
            "msg": "hello %s",
            "args": ("you",),
            "session_id": "abc",
        }
    )
    payload = json.loads(JsonFormatter().format(record))
    assert payload["message"] == "hello you"
    assert payload["level"] == "INFO"
    assert payload["logger"] == "openhands"
    assert payload["session_id"] == "abc"


@pytest.mark.allow_skip_in_ci("the CI environment may turn LLM logging on")
def test_llm_loggers_disabled_by_default() -> None:
    if os.environ.get("LOG_ALL_EVENTS") or os.environ.get("DEBUG_LLM"):
        pytest.skip("enabled by the environment")
    assert llm_prompt_logger.disabled
    assert llm_response_logger.disabled
    assert llm_prompt_logger.name == "prompt"
    assert llm_response_logger.name == "response"


def _run_with_env(code: str, env: dict[str, str], stdin: str = "") -> str:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {
            "LOG_LEVEL",
            "DEBUG",
            "LOG_TO_FILE",
            "LOG_JSON",
            "LOG_DIR",
            "LOG_ALL_EVENTS",
            "DEBUG_LLM",
        }
    }
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={**clean, **env},
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return result.stdout + result.stderr


def test_level_from_env() -> None:
    code = "from openhands.core.logger import openhands_logger as l; print(l.level)"
    assert _run_with_env(code, {}).strip() == str(logging.INFO)
    assert _run_with_env(code, {"LOG_LEVEL": "warning"}).strip() == str(logging.WARNING)
    assert _run_with_env(code, {"LOG_LEVEL": "info", "DEBUG": "true"}).strip() == str(logging.DEBUG)


def test_file_and_json_logging(tmp_path: Path) -> None:
    code = (
        "from openhands.core.logger import openhands_logger as l\n"
        "l.info('key is %s', 'file-secret-value')\n"
    )
    output = _run_with_env(
        code,
        {
            "LOG_TO_FILE": "true",
            "LOG_DIR": str(tmp_path),
            "LOG_JSON": "1",
            "MY_API_KEY": "file-secret-value",
        },
    )
    files = list(tmp_path.glob("*.log"))
    assert len(files) == 1
    line = files[0].read_text().strip().splitlines()[-1]
    assert json.loads(line)["message"] == f"key is {MASK}"
    assert "file-secret-value" not in output


def test_llm_loggers_enabled_by_env() -> None:
    code = "from openhands.core.logger import llm_prompt_logger as p; print(p.disabled)"
    assert _run_with_env(code, {"LOG_ALL_EVENTS": "true"}).strip().endswith("False")
    assert _run_with_env(code, {"DEBUG_LLM": "1"}).strip().endswith("False")


LITELLM_SWITCHES = (
    "import litellm\n"
    "import openhands.llm.llm\n"
    "print('SWITCHES', litellm.suppress_debug_info, litellm.set_verbose)\n"
)


@pytest.mark.parametrize(
    ("env", "suppressed"),
    [({}, True), ({"DEBUG_LLM": "true"}, False)],
)
def test_debug_llm_never_turns_on_litellms_print_verbose_mode(
    env: dict[str, str], suppressed: bool
) -> None:
    """Deliberately unlike 0.59 (which asks on stdin, then sets ``set_verbose``): LiteLLM's
    verbose mode print()s calls with their API key past every logging filter, so it stays
    off; DEBUG_LLM raises LiteLLM's loggers instead, whose records our filter masks. Nothing
    is read from stdin (a ``y`` offered there changes nothing)."""
    output = _run_with_env(LITELLM_SWITCHES, env, stdin="y\n")
    assert f"SWITCHES {suppressed} False" in output
    assert "go ahead" not in output
