"""What a browser (or script) may append to a conversation (server-api §7.6). Pure.

The reference parses the payload into an event and appends whatever comes out: a dict
where text belongs, or an agent state the controller cannot take, then breaks the
conversation later, on another thread. Here a payload must be an action whose fields
all have their declared types before it gets near the stream.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable
from functools import lru_cache
from typing import cast

from pydantic import TypeAdapter, ValidationError

from openhands.core.schema import AgentState
from openhands.events.action import Action, ChangeAgentStateAction
from openhands.events.serialization import event_from_dict

_AGENT_STATES = frozenset(state.value for state in AgentState)


class InvalidUserActionError(ValueError):
    """A browser payload that is not a valid action."""


def parse_user_action(data: object) -> Action:
    """The action ``data`` describes; raises InvalidUserActionError when it is not one."""
    if not isinstance(data, dict):
        raise InvalidUserActionError("An action must be a JSON object")
    if "action" not in data:
        raise InvalidUserActionError("Only actions can be sent")
    try:
        event = event_from_dict(dict(data))
    except Exception as error:  # the serializer's malformed-action, key and type errors
        raise InvalidUserActionError(f"Invalid action: {error}") from error
    if not isinstance(event, Action):
        raise InvalidUserActionError("Only actions can be sent")
    for field in dataclasses.fields(event):
        if not field.init or field.name.startswith("_") or isinstance(field.type, str):
            continue
        try:
            _adapter(cast(Hashable, field.type)).validate_python(
                getattr(event, field.name), strict=True
            )
        except ValidationError as error:
            problem = error.errors()[0]["msg"]
            raise InvalidUserActionError(
                f"Invalid {event.action} action: {field.name}: {problem}"
            ) from None
    if isinstance(event, ChangeAgentStateAction) and event.agent_state not in _AGENT_STATES:
        raise InvalidUserActionError(f"Invalid agent state: {event.agent_state!r}")
    return event


@lru_cache(maxsize=256)
def _adapter(annotation: Hashable) -> TypeAdapter[object]:
    # ``annotation`` is a dataclass field's type (a class, a union, a Literal...): any type
    # form TypeAdapter accepts; the cast only tells mypy so.
    return TypeAdapter(cast("type[object]", annotation))
