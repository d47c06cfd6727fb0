"""How the resolver's command lines report a failure: one clear line, exit status 1.

Provider rate limits, rejected tokens, LLM provider errors, a missing setting, HTTP or git
failures are expected in CI; their message is what the user needs, a traceback only hides
it. Every line goes through the logger's secret masking first: provider errors and git
output can quote URLs or keys that carry a token.
"""

from __future__ import annotations

import re
import sys
import traceback
from collections.abc import Callable
from typing import TypeVar

import httpx

from openhands.core import exceptions as core_errors
from openhands.core.logger import mask_secrets, mask_sensitive_assignments

T = TypeVar("T")

# Failures whose message says what went wrong; anything else is a bug and keeps its
# traceback. LLM provider errors are recognised separately (see `_llm_error`).
EXPECTED_ERRORS: tuple[type[BaseException], ...] = (
    ValueError,
    RuntimeError,
    httpx.HTTPError,
    OSError,
    core_errors.AgentError,
    core_errors.AgentRuntimeError,
    core_errors.LLMNoResponseError,
    core_errors.CloudFlareBlockageError,
    core_errors.MicroagentError,
)

# A `KeyError` for a name like this is an unset environment variable (`os.environ[...]`).
_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")
# What to set instead of each variable the command lines read with `os.environ[...]`.
_ENV_HINTS = {
    "LLM_MODEL": "set LLM_MODEL or pass --llm-model",
    "LLM_API_KEY": "set LLM_API_KEY or pass --llm-api-key",
}
_MAX_LENGTH = 800


def describe_error(error: BaseException) -> str:
    """One line for the user: what failed, refused by whom, and what to do about it."""
    llm_message = _llm_error(error)
    if llm_message is not None:
        return llm_message
    if isinstance(error, httpx.HTTPStatusError):
        response = error.response
        request = error.request
        where = f"{request.method} {request.url.copy_with(query=None)}"
        if _is_rate_limited(response):
            retry = response.headers.get("retry-after") or response.headers.get("x-ratelimit-reset")
            hint = f"; retry after {retry}" if retry else "; retry later"
            return f"API rate limit exceeded (HTTP {response.status_code}) for {where}{hint}"
        if response.status_code == 401:
            return f"The token was rejected (HTTP 401) for {where}: check the token"
        return f"HTTP {response.status_code} from {where}"
    if isinstance(error, httpx.RequestError):
        return f"Could not reach {error.request.url.copy_with(query=None)}: {error}"
    if isinstance(error, core_errors.AgentRuntimeError):
        return f"The sandbox failed: {_text(error)}"
    if _missing_env_name(error) is not None:
        name = _missing_env_name(error)
        hint = _ENV_HINTS.get(str(name), f"set {name}")
        return f"The environment variable {name} is not set: {hint}"
    return _text(error)


def _llm_error(error: BaseException) -> str | None:
    """The line for an error of the LLM provider (LiteLLM raises OpenAI's error types), or
    None when ``error`` is not one."""
    if "openai" not in sys.modules and "litellm" not in sys.modules:
        return None  # nothing has talked to an LLM in this process
    import openai

    if type(error).__name__ == "BudgetExceededError":  # LiteLLM's, not an OpenAI error
        return f"The LLM budget is exhausted: {_text(error)}"
    if not isinstance(error, openai.OpenAIError):
        return None
    message = _text(error)
    # LiteLLM reports a refused connection as an "internal server error"; its cause says more.
    unreachable = _connection_failure(error)
    if unreachable is not None and not isinstance(unreachable, openai.APITimeoutError):
        return f"Could not reach the LLM provider: {_text(_root_cause(error))}; check LLM_BASE_URL"
    if isinstance(error, openai.RateLimitError):
        return f"The LLM provider's rate limit is exhausted (HTTP 429): {message}"
    if isinstance(error, openai.AuthenticationError):
        return f"The LLM provider rejected the API key (HTTP 401): {message}; check LLM_API_KEY"
    if isinstance(error, openai.APITimeoutError):
        return f"The LLM provider did not answer in time: {message}"
    if isinstance(error, openai.APIStatusError):
        return f"The LLM request failed (HTTP {error.status_code}): {message}"
    return f"The LLM request failed: {message}"


def _causes(error: BaseException) -> list[BaseException]:
    """``error`` and what it was raised from, outermost first (cycles cut)."""
    chain: list[BaseException] = []
    link: BaseException | None = error
    while link is not None and link not in chain:
        chain.append(link)
        link = link.__cause__ or link.__context__
    return chain


def _root_cause(error: BaseException) -> BaseException:
    return _causes(error)[-1]


def _connection_failure(error: BaseException) -> BaseException | None:
    import openai

    for link in _causes(error):
        if isinstance(link, openai.APIConnectionError | httpx.TransportError):
            return link
    return None


def _missing_env_name(error: BaseException) -> str | None:
    if type(error) is not KeyError or len(error.args) != 1:
        return None
    name = error.args[0]
    return name if isinstance(name, str) and _ENV_NAME.match(name) else None


def _is_rate_limited(response: httpx.Response) -> bool:
    if response.status_code == 429:
        return True
    # GitHub answers 403 with no remaining quota.
    return response.status_code == 403 and response.headers.get("x-ratelimit-remaining") == "0"


def _is_expected(error: BaseException) -> bool:
    return (
        isinstance(error, EXPECTED_ERRORS)
        or _missing_env_name(error) is not None
        or _llm_error(error) is not None
    )


def _text(error: BaseException) -> str:
    return str(error) or type(error).__name__


def error_line(error: BaseException) -> str:
    """``Error: <description>`` on one line, secrets masked, bounded in length."""
    line = " ".join(describe_error(error).split())
    line = mask_secrets(mask_sensitive_assignments(line))
    if len(line) > _MAX_LENGTH:
        line = line[: _MAX_LENGTH - 3] + "..."
    return f"Error: {line}"


def run_cli(main: Callable[[], T]) -> T:
    """``main()``; an expected failure is printed as one line and exits with status 1.

    Anything else is a bug: its traceback is printed (masked too, since frames can quote
    a token) and the exit status is 1 as well.
    """
    try:
        return main()
    except Exception as error:
        if _is_expected(error):
            print(error_line(error), file=sys.stderr)
        else:
            trace = "".join(traceback.format_exception(error))
            print(mask_secrets(mask_sensitive_assignments(trace)), end="", file=sys.stderr)
        raise SystemExit(1) from None
