"""``DEBUG_LLM``: LiteLLM's own verbose logging, with secrets masked.

Besides our prompt/response loggers (``core/logger.py``), ``DEBUG_LLM=true`` turns LiteLLM's
package, router and proxy loggers up to DEBUG and lets LiteLLM print its debug hints. Those
records pass our ``SensitiveDataFilter``, so API keys (from the environment, the config, or an
``LLM`` built later) are masked. LiteLLM's older ``set_verbose`` switch is left off on purpose:
it ``print()``s request details straight to stdout, past any logging filter.
"""

from __future__ import annotations

import logging

import litellm
from pydantic import SecretStr

from openhands.core import logger as oh_logger

LITELLM_LOGGER_NAMES = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")

_enabled = False


def debug_llm_enabled() -> bool:
    return oh_logger.DEBUG_LLM


def enable_litellm_debug_logging() -> bool:
    """Turn LiteLLM's verbose logging on when ``DEBUG_LLM`` is set; True if it is on.
    Idempotent: the filter is attached once per logger and handler."""
    global _enabled
    if not debug_llm_enabled():
        return False
    litellm.suppress_debug_info = False
    for name in LITELLM_LOGGER_NAMES:
        lite_logger = logging.getLogger(name)
        lite_logger.setLevel(logging.DEBUG)
        for target in (lite_logger, *lite_logger.handlers):
            if not any(isinstance(f, oh_logger.SensitiveDataFilter) for f in target.filters):
                target.addFilter(oh_logger.SensitiveDataFilter())
    if not _enabled:
        _enabled = True
        oh_logger.openhands_logger.info(
            "DEBUG_LLM is set: LiteLLM debug logging is on (secrets are masked)"
        )
    return True


def register_llm_secrets(*values: SecretStr | str | None) -> None:
    """Mask these credentials in every log record while LiteLLM logs verbosely."""
    if not debug_llm_enabled():
        return
    for value in values:
        oh_logger.register_secret(value)
