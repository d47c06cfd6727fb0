"""``content`` + ``extras`` ⇄ Observation, including legacy rewrites."""

from __future__ import annotations

from typing import Any

from openhands.events.event import RecallType
from openhands.events.observation.agent import MicroagentKnowledge, RecallObservation
from openhands.events.observation.commands import CmdOutputMetadata, CmdOutputObservation
from openhands.events.observation.observation import Observation
from openhands.events.serialization.registry import (
    OBSERVATION_EXTRAS_ORDER,
    OBSERVATION_TYPE_TO_CLASS,
)


def observation_from_dict(data: dict[str, Any]) -> Observation:
    observation_type = data["observation"]
    cls = OBSERVATION_TYPE_TO_CLASS.get(observation_type)  # type: ignore[arg-type]
    if cls is None:
        known = ", ".join(sorted(OBSERVATION_TYPE_TO_CLASS))
        raise KeyError(f"'{observation_type}' is not a known observation type. Known: {known}")
    content = data.get("content", "")
    raw_extras = data.get("extras") or {}
    order = OBSERVATION_EXTRAS_ORDER.get(cls)
    if (
        order is not None
        and cls is not RecallObservation
        and len(raw_extras) == len(order)
        and tuple(raw_extras) == order
        and (cls is not CmdOutputObservation or isinstance(raw_extras["metadata"], dict))
    ):
        # The usual case: exactly the declared fields, as event_to_dict writes them (see
        # action_from_dict). CmdOutputObservation builds its metadata from the dict itself.
        return cls(content, *raw_extras.values())
    extras = dict(raw_extras)
    # Legacy key written by old editor/command observations; no class declares it any more.
    extras.pop("formatted_output_and_error", None)

    if cls is CmdOutputObservation:
        metadata = extras.get("metadata")
        metadata = dict(metadata) if isinstance(metadata, dict) else {}
        if "exit_code" in extras:
            metadata["exit_code"] = extras.pop("exit_code")
        if "command_id" in extras:
            metadata["pid"] = extras.pop("command_id")
        extras["metadata"] = CmdOutputMetadata(**metadata)
    elif cls is RecallObservation:
        if "recall_type" in extras:
            extras["recall_type"] = RecallType(extras["recall_type"])
        knowledge = extras.get("microagent_knowledge")
        if isinstance(knowledge, list):
            extras["microagent_knowledge"] = [
                k if isinstance(k, MicroagentKnowledge) else MicroagentKnowledge(**k)
                for k in knowledge
            ]
    return cls(content=content, **extras)
