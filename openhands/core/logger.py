"""The `openhands` logger: level and sinks from the environment, secrets masked in every record.

Environment:
- ``LOG_LEVEL`` (default INFO); ``DEBUG=true`` forces DEBUG.
- ``LOG_TO_FILE`` (default: on when the level is DEBUG) writes to ``LOG_DIR`` (default ``./logs``).
- ``LOG_JSON=true`` emits one JSON object per line instead of text; ``LOG_JSON_LEVEL_KEY``
  (default ``level``) names the level field.
- ``DEBUG_RUNTIME`` asks the runtimes for their own debug output (sandbox logs).
- ``LOG_ALL_EVENTS`` / ``DEBUG_LLM`` enable the prompt and response loggers.

Importing this module only creates loggers and handlers; it never touches the network.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import threading
from collections.abc import Iterable, Mapping, MutableMapping
from datetime import UTC, datetime
from typing import Any, TextIO

from pydantic import SecretStr

_TRUE_VALUES = frozenset({"true", "1", "yes", "on"})


def _env_flag(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in _TRUE_VALUES


DEBUG: bool = _env_flag("DEBUG")
DEBUG_LLM: bool = _env_flag("DEBUG_LLM")
LOG_ALL_EVENTS: bool = _env_flag("LOG_ALL_EVENTS")
LOG_LEVEL: str = "DEBUG" if DEBUG else os.environ.get("LOG_LEVEL", "INFO").strip().upper()
LOG_TO_FILE: bool = _env_flag("LOG_TO_FILE", default=LOG_LEVEL == "DEBUG")
LOG_JSON: bool = _env_flag("LOG_JSON")
LOG_JSON_LEVEL_KEY: str = os.environ.get("LOG_JSON_LEVEL_KEY") or "level"
DEBUG_RUNTIME: bool = _env_flag("DEBUG_RUNTIME")
LOG_DIR: str = os.path.abspath(os.environ.get("LOG_DIR") or os.path.join(os.getcwd(), "logs"))

MASK = "******"

# Environment variable names containing one of these look like they hold a secret.
SECRET_NAME_MARKERS: tuple[str, ...] = (
    "API_KEY",
    "ACCESS_KEY",
    "PRIVATE_KEY",
    "SECRET",
    "TOKEN",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "AUTH_KEY",
)
# Values this short or this common would garble every log line if masked.
_MIN_SECRET_LENGTH = 8
_NOT_SECRETS = frozenset({"true", "false", "none", "null", "yes", "no"})


def _level_from_name(name: str) -> int:
    level = logging.getLevelName(name)
    return level if isinstance(level, int) else logging.INFO


# --- secret masking -----------------------------------------------------------------

_registered_secrets: set[str] = set()
_secrets_lock = threading.Lock()


def register_secret(value: str | SecretStr | None) -> None:
    """Mask this value wherever it appears in a log record from now on."""
    if value is None:
        return
    raw = value.get_secret_value() if isinstance(value, SecretStr) else value
    if _is_maskable(raw):
        with _secrets_lock:
            _registered_secrets.add(raw)


def unregister_secret(value: str | SecretStr) -> None:
    raw = value.get_secret_value() if isinstance(value, SecretStr) else value
    with _secrets_lock:
        _registered_secrets.discard(raw)


def clear_registered_secrets() -> None:
    with _secrets_lock:
        _registered_secrets.clear()


def _is_maskable(value: str) -> bool:
    stripped = value.strip()
    return len(stripped) >= _MIN_SECRET_LENGTH and stripped.lower() not in _NOT_SECRETS


def is_secret_name(name: str) -> bool:
    upper = name.upper()
    return any(marker in upper for marker in SECRET_NAME_MARKERS)


def current_secrets() -> list[str]:
    """Secret values from the environment and the registry, longest first."""
    values = {
        value for name, value in os.environ.items() if is_secret_name(name) and _is_maskable(value)
    }
    with _secrets_lock:
        values.update(_registered_secrets)
    return sorted(values, key=len, reverse=True)


def mask_secrets(text: str, secrets: Iterable[str] | None = None) -> str:
    for secret in current_secrets() if secrets is None else secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


# `name=value` / `name='value'` assignments of these credential names are masked in log
# text even when the value itself is not known to be a secret (e.g. a config printed with
# its repr, or a key pasted into a message). Matched case-insensitively.
SENSITIVE_ASSIGNMENT_NAMES: tuple[str, ...] = (
    "api_key",
    "aws_access_key_id",
    "aws_secret_access_key",
    "e2b_api_key",
    "github_token",
    "jwt_secret",
    "modal_api_token_id",
    "modal_api_token_secret",
    "llm_api_key",
    "sandbox_env_github_token",
    "runloop_api_key",
    "daytona_api_key",
)
_SENSITIVE_ASSIGNMENT = re.compile(
    r"(" + "|".join(re.escape(n) for n in SENSITIVE_ASSIGNMENT_NAMES) + r")=(['\"]?)[^\s'\",)]+\2",
    re.IGNORECASE,
)


def mask_sensitive_assignments(text: str) -> str:
    """`text` with the value of every `api_key=...`-style assignment replaced by the mask."""
    if "=" not in text:
        return text
    return _SENSITIVE_ASSIGNMENT.sub(lambda m: f"{m.group(1)}='{MASK}'", text)


class SensitiveDataFilter(logging.Filter):
    """Rewrites each record so that no known secret survives in its message or traceback,
    and no `api_key=...`-style assignment shows its value."""

    _exception_formatter = logging.Formatter()

    def filter(self, record: logging.LogRecord) -> bool:
        secrets = current_secrets()
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: leave the record for logging to report
            return True
        masked = mask_sensitive_assignments(message)
        if not secrets:
            if masked is not message:
                record.msg = masked
                record.args = None
            return True
        record.msg = mask_secrets(masked, secrets)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = self._exception_formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = mask_secrets(record.exc_text, secrets)
        if record.stack_info:
            record.stack_info = mask_secrets(record.stack_info, secrets)
        return True


# --- formatting and handlers ----------------------------------------------------------

TEXT_FORMAT = "%(asctime)s - %(levelname)s - %(name)s:%(filename)s:%(lineno)d - %(message)s"
_RESERVED_RECORD_KEYS = frozenset(vars(logging.makeLogRecord({})).keys()) | {"message", "asctime"}
_ANSI_ESCAPE = re.compile(r"\x1B(?:[@-Z\\-_]|\[[0-?]*[ -/]*[@-~])")


def strip_ansi(text: str) -> str:
    """`text` without ANSI escape sequences (colors, cursor moves)."""
    return _ANSI_ESCAPE.sub("", text)


class JsonFormatter(logging.Formatter):
    """One JSON object per record: message, level (under `level_key`), timestamp, the
    record's `extra=` fields and, with `include_source`, the logger name and location."""

    def __init__(self, level_key: str = "level", include_source: bool = True) -> None:
        super().__init__()
        self.level_key = level_key
        self.include_source = include_source

    def format(self, record: logging.LogRecord) -> str:
        payload: dict[str, object] = {"message": record.getMessage()}
        payload[self.level_key] = record.levelname
        payload["timestamp"] = datetime.fromtimestamp(record.created, tz=UTC).isoformat()
        if self.include_source:
            payload["logger"] = record.name
            payload["location"] = f"{record.filename}:{record.lineno}"
        for key, value in vars(record).items():
            if key not in _RESERVED_RECORD_KEYS and not key.startswith("_"):
                payload[key] = value
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            payload["exc_info"] = record.exc_text
        return json.dumps(payload, default=str)


def json_formatter() -> JsonFormatter:
    """The formatter of JSON logs: message, level under ``LOG_JSON_LEVEL_KEY``, timestamp and
    the record's extra fields."""
    return JsonFormatter(level_key=LOG_JSON_LEVEL_KEY, include_source=False)


def json_log_handler(level: int = logging.INFO, _out: TextIO | None = None) -> logging.Handler:
    """A stream handler writing one JSON object per line to `_out` (default: stdout at call
    time), secrets masked."""
    handler = logging.StreamHandler(sys.stdout if _out is None else _out)
    handler.setLevel(level)
    handler.setFormatter(json_formatter())
    handler.addFilter(SensitiveDataFilter())
    return handler


def get_uvicorn_json_log_config() -> dict[str, Any]:
    """A `logging.config.dictConfig` dict that makes uvicorn's error and access logs JSON
    (pass it as uvicorn's `log_config`)."""
    stream_handler = {
        "class": "logging.StreamHandler",
        "formatter": "json",
        "filters": ["mask_secrets"],
        "stream": "ext://sys.stdout",
    }
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"mask_secrets": {"()": f"{__name__}.SensitiveDataFilter"}},
        "formatters": {"json": {"()": f"{__name__}.json_formatter"}},
        "handlers": {"default": stream_handler, "access": dict(stream_handler)},
        "loggers": {
            "uvicorn": {"handlers": ["default"], "level": "INFO", "propagate": False},
            "uvicorn.error": {"handlers": ["default"], "level": "INFO", "propagate": False},
            "uvicorn.access": {"handlers": ["access"], "level": "INFO", "propagate": False},
            # dictConfig would otherwise re-enable LiteLLM's loggers (they can leak keys).
            "LiteLLM": {"handlers": [], "level": "CRITICAL", "propagate": False},
            "LiteLLM Router": {"handlers": [], "level": "CRITICAL", "propagate": False},
            "LiteLLM Proxy": {"handlers": [], "level": "CRITICAL", "propagate": False},
        },
    }


_LEVEL_COLORS = {
    logging.DEBUG: "\x1b[36m",  # cyan
    logging.INFO: "\x1b[32m",  # green
    logging.WARNING: "\x1b[33m",  # yellow
    logging.ERROR: "\x1b[31m",  # red
    logging.CRITICAL: "\x1b[1;31m",  # bold red
}
_RESET = "\x1b[0m"


class ColoredFormatter(logging.Formatter):
    """`TEXT_FORMAT` (or `fmt`) with the level name, and a record's `msg_type` (ACTION,
    OBSERVATION, ...) when it has one, in color."""

    def __init__(self, fmt: str = TEXT_FORMAT, datefmt: str | None = None) -> None:
        super().__init__(fmt, datefmt)

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        color = _LEVEL_COLORS.get(record.levelno, "")
        if color:
            text = text.replace(record.levelname, f"{color}{record.levelname}{_RESET}", 1)
        msg_type = getattr(record, "msg_type", None)
        if isinstance(msg_type, str) and msg_type:
            text = f"{color}{msg_type}{_RESET} {text}"
        return text


class NoColorFormatter(logging.Formatter):
    """Plain text for files: any ANSI escape in the formatted record is removed."""

    def __init__(self, fmt: str = TEXT_FORMAT, datefmt: str | None = None) -> None:
        super().__init__(fmt, datefmt)

    def format(self, record: logging.LogRecord) -> str:
        return strip_ansi(super().format(record))


def _formatter(use_json: bool) -> logging.Formatter:
    return (
        JsonFormatter(level_key=LOG_JSON_LEVEL_KEY) if use_json else logging.Formatter(TEXT_FORMAT)
    )


def get_console_handler(level: int, use_json: bool = LOG_JSON) -> logging.Handler:
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(level)
    handler.setFormatter(_formatter(use_json))
    handler.addFilter(SensitiveDataFilter())
    return handler


def get_file_handler(
    log_dir: str, level: int, filename: str | None = None, use_json: bool = LOG_JSON
) -> logging.Handler:
    os.makedirs(log_dir, exist_ok=True)
    name = filename or f"openhands_{datetime.now():%Y-%m-%d}.log"
    handler = logging.FileHandler(os.path.join(log_dir, name), encoding="utf-8")
    handler.setLevel(level)
    handler.setFormatter(_formatter(use_json) if use_json else NoColorFormatter())
    handler.addFilter(SensitiveDataFilter())
    return handler


def _build_openhands_logger() -> logging.Logger:
    logger = logging.getLogger("openhands")
    level = _level_from_name(LOG_LEVEL)
    logger.setLevel(level)
    # The filter on the logger masks the record itself, so handlers further up the tree
    # (pytest's caplog, an embedding app's root handler) see the masked text as well.
    logger.addFilter(SensitiveDataFilter())
    if not any(getattr(h, "_openhands_console", False) for h in logger.handlers):
        console = get_console_handler(level)
        console._openhands_console = True  # type: ignore[attr-defined]
        logger.addHandler(console)
    if LOG_TO_FILE:
        logger.addHandler(get_file_handler(LOG_DIR, level))
    return logger


openhands_logger: logging.Logger = _build_openhands_logger()


class OpenHandsLoggerAdapter(logging.LoggerAdapter[logging.Logger]):
    """A logger that adds fixed `extra` fields (a session id, ...) to every record; the
    `extra` of a single call is merged over them."""

    def __init__(
        self, logger: logging.Logger = openhands_logger, extra: Mapping[str, object] | None = None
    ) -> None:
        super().__init__(logger, dict(extra or {}))

    def process(
        self, msg: Any, kwargs: MutableMapping[str, Any]
    ) -> tuple[Any, MutableMapping[str, Any]]:
        kwargs["extra"] = {**(self.extra or {}), **(kwargs.get("extra") or {})}
        return msg, kwargs


def set_log_level(level: int | str) -> None:
    """Change the level of `openhands_logger` and of all its handlers."""
    numeric = _level_from_name(level.upper()) if isinstance(level, str) else level
    openhands_logger.setLevel(numeric)
    for handler in openhands_logger.handlers:
        handler.setLevel(numeric)


# --- prompt / response loggers ------------------------------------------------------------


def _build_llm_logger(name: str) -> logging.Logger:
    logger = logging.getLogger(name)
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    logger.addFilter(SensitiveDataFilter())
    enabled = LOG_ALL_EVENTS or DEBUG_LLM
    logger.disabled = not enabled
    if enabled and not logger.handlers:
        if LOG_TO_FILE:
            logger.addHandler(
                get_file_handler(os.path.join(LOG_DIR, "llm"), logging.DEBUG, f"{name}.log")
            )
        else:
            logger.addHandler(get_console_handler(logging.DEBUG))
    return logger


llm_prompt_logger: logging.Logger = _build_llm_logger("prompt")
llm_response_logger: logging.Logger = _build_llm_logger("response")


# --- a live tail of the last lines (image builds) ------------------------------------------


class RollingLogger:
    """Shows the last `max_lines` lines of a long output (e.g. a Docker build) in place on a
    terminal, each cut at `char_limit`; `all_lines` keeps the whole text. Used when DEBUG is
    on and stdout is a terminal (`is_enabled`)."""

    _CURSOR_UP = "\x1b[F"
    _CLEAR_LINE = "\x1b[2K"

    def __init__(self, max_lines: int = 10, char_limit: int = 80) -> None:
        self.max_lines = max_lines
        self.char_limit = char_limit
        self.log_lines: list[str] = [""] * max_lines
        self.all_lines = ""

    def is_enabled(self) -> bool:
        return DEBUG and sys.stdout.isatty()

    def start(self, message: str = "") -> None:
        """Print `message`, then reserve the lines the tail is drawn on."""
        if message:
            self._write(f"{message}\n")
        self._write("\n" * self.max_lines)
        self._flush()

    def add_line(self, line: str) -> None:
        self.log_lines.pop(0)
        self.log_lines.append(line[: self.char_limit])
        self.print_lines()
        self.all_lines += f"{line}\n"

    def write_immediately(self, line: str) -> None:
        self._write(line)
        self._flush()

    def print_lines(self) -> None:
        """Redraw the tail over the lines drawn before."""
        self.move_back()
        for line in self.log_lines:
            self._write(f"{self._CLEAR_LINE}{line}\n")
        self._flush()

    def move_back(self, amount: int = -1) -> None:
        """Move the cursor up `amount` lines (all of the tail when -1)."""
        self._write(self._CURSOR_UP * (self.max_lines if amount == -1 else amount))
        self._flush()

    def _write(self, text: str) -> None:
        sys.stdout.write(text)

    def _flush(self) -> None:
        sys.stdout.flush()


__all__ = [
    "DEBUG",
    "DEBUG_LLM",
    "DEBUG_RUNTIME",
    "LOG_ALL_EVENTS",
    "LOG_DIR",
    "LOG_JSON",
    "LOG_JSON_LEVEL_KEY",
    "LOG_LEVEL",
    "LOG_TO_FILE",
    "MASK",
    "ColoredFormatter",
    "JsonFormatter",
    "NoColorFormatter",
    "OpenHandsLoggerAdapter",
    "RollingLogger",
    "SensitiveDataFilter",
    "clear_registered_secrets",
    "current_secrets",
    "get_console_handler",
    "get_file_handler",
    "get_uvicorn_json_log_config",
    "is_secret_name",
    "json_formatter",
    "json_log_handler",
    "llm_prompt_logger",
    "llm_response_logger",
    "mask_secrets",
    "openhands_logger",
    "register_secret",
    "set_log_level",
    "strip_ansi",
    "unregister_secret",
]
