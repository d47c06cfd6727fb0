"""Small helpers shared by the resolver's command lines."""

from __future__ import annotations

import logging
import multiprocessing
import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from pydantic import SecretStr

from openhands.core.logger import get_console_handler
from openhands.core.logger import openhands_logger as logger
from openhands.events.action import Action, MessageAction
from openhands.integrations.service_types import ProviderType
from openhands.integrations.utils import validate_provider_token

if TYPE_CHECKING:
    from openhands.controller.state.state import State

_MARKDOWN_IMAGE = re.compile(r"!\[.*?\]\((https?://[^\s)]+)\)")
_FENCED_CODE = re.compile(r"```.*?```", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`]*`")
# A URL whose fragment or path carries ``#<digits>`` is a link, not an issue reference.
_URL_WITH_HASH_NUMBER = re.compile(r"https?://[^\s)]*#\d+[^\s)]*")
# ``#<digits>`` standing on its own: after the start, whitespace, an opening bracket or
# another non-word character that is not ``#``; before whitespace, ``, . ] ) }`` or the end.
_ISSUE_REFERENCE = re.compile(r"(?:^|[\s\[({]|[^\w#])#(\d+)(?=[\s,.\])}]|$)")


async def identify_token(token: str, base_domain: str | None) -> ProviderType:
    """The provider ``token`` belongs to (GitHub, then GitLab, then Bitbucket are asked);
    ``ValueError`` when none accepts it. ``base_domain`` is a self-hosted host, if any."""
    provider = await validate_provider_token(SecretStr(token), base_domain)
    if provider is None:
        raise ValueError("Token is invalid.")
    return provider


def codeact_user_response(
    state: State,
    encapsulate_solution: bool = False,
    try_parse: Callable[[Action | None], str | None] | None = None,
) -> str:
    """What the stand-in user answers when the agent asks something: carry on alone.

    When ``try_parse`` finds an answer in the agent's last action the conversation ends
    (``/exit``); once the agent has been told to carry on twice it is also told how to give up.
    """
    reply = (
        "Keep working on the task with whichever approach you judge best.\n"
        "When you believe the task is solved, first send your answer to the user in a "
        "message, then finish the interaction.\n"
    )
    if encapsulate_solution:
        reply += (
            "Put your final answer, and only the answer, between <solution> and </solution>, "
            "for example: the answer is <solution> 42 </solution>.\n"
        )
    reply += "IMPORTANT: never ask a human for help; nobody will answer.\n"

    if not state.history:
        return reply
    if try_parse is not None:
        last_action = next(
            (event for event in reversed(state.history) if isinstance(event, Action)), None
        )
        if try_parse(last_action) is not None:
            return "/exit"
    user_messages = [
        event
        for event in state.history
        if isinstance(event, MessageAction) and event.source == "user"
    ]
    if len(user_messages) >= 2:
        reply += "If you want to give up, run: <execute_bash> exit </execute_bash>.\n"
    return reply


def cleanup() -> None:
    """Stop every child process this process started."""
    logger.info("Cleaning up child processes...")
    for process in multiprocessing.active_children():
        logger.info(f"Terminating child process: {process.name}")
        process.terminate()
        process.join()


def reset_logger_for_multiprocessing(
    logger: logging.Logger, instance_id: str, log_dir: str
) -> None:
    """Send ``logger`` to ``<log_dir>/instance_<id>.log`` only, after one line on the
    console saying where to look, so parallel workers do not interleave on the terminal."""
    log_file = os.path.join(log_dir, f"instance_{instance_id}.log")
    for handler in logger.handlers[:]:
        logger.removeHandler(handler)
    logger.addHandler(get_console_handler(logging.INFO))
    logger.info(
        f"Starting resolver for instance {instance_id}.\n"
        f'Hint: run "tail -f {log_file}" to see live logs in a separate shell'
    )
    for handler in logger.handlers[:]:
        logger.removeHandler(handler)
    os.makedirs(os.path.dirname(log_file), exist_ok=True)
    file_handler = logging.FileHandler(log_file)
    file_handler.setFormatter(logging.Formatter("%(asctime)s - %(levelname)s - %(message)s"))
    logger.addHandler(file_handler)


def extract_image_urls(issue_body: str) -> list[str]:
    """The http(s) URLs of the Markdown images (``![alt](url)``) in ``issue_body``."""
    return _MARKDOWN_IMAGE.findall(issue_body)


def extract_issue_references(body: str) -> list[int]:
    """The issue numbers referenced as ``#<n>`` in ``body``, in order (repeats kept),
    ignoring code and URLs."""
    body = _FENCED_CODE.sub("", body)
    body = _INLINE_CODE.sub("", body)
    body = _URL_WITH_HASH_NUMBER.sub("", body)
    return [int(number) for number in _ISSUE_REFERENCE.findall(body)]


def get_unique_uid(start_uid: int = 1000) -> int:
    """The smallest uid from ``start_uid`` on that ``/etc/passwd`` does not use."""
    taken: set[int] = set()
    with open("/etc/passwd", encoding="utf-8") as passwd:
        for line in passwd:
            fields = line.split(":")
            if len(fields) > 2 and fields[2].strip().isdigit():
                taken.add(int(fields[2]))
    uid = start_uid
    while uid in taken:
        uid += 1
    return uid
