"""Type string → class tables, and each class's declared field names (cached once)."""

from __future__ import annotations

import dataclasses
import inspect

from openhands.events import action as _actions
from openhands.events import observation as _observations
from openhands.events.action.action import Action
from openhands.events.observation.observation import Observation

ACTION_CLASSES: tuple[type[Action], ...] = (
    _actions.MessageAction,
    _actions.SystemMessageAction,
    _actions.CmdRunAction,
    _actions.IPythonRunCellAction,
    _actions.BrowseURLAction,
    _actions.BrowseInteractiveAction,
    _actions.FileReadAction,
    _actions.FileWriteAction,
    _actions.FileEditAction,
    _actions.MCPAction,
    _actions.AgentThinkAction,
    _actions.AgentFinishAction,
    _actions.AgentRejectAction,
    _actions.AgentDelegateAction,
    _actions.RecallAction,
    _actions.ChangeAgentStateAction,
    _actions.NullAction,
    _actions.CondensationAction,
    _actions.CondensationRequestAction,
    _actions.TaskTrackingAction,
)

OBSERVATION_CLASSES: tuple[type[Observation], ...] = (
    _observations.NullObservation,
    _observations.CmdOutputObservation,
    _observations.IPythonRunCellObservation,
    _observations.BrowserOutputObservation,
    _observations.FileReadObservation,
    _observations.FileWriteObservation,
    _observations.FileEditObservation,
    _observations.AgentDelegateObservation,
    _observations.SuccessObservation,
    _observations.ErrorObservation,
    _observations.AgentStateChangedObservation,
    _observations.UserRejectObservation,
    _observations.AgentCondensationObservation,
    _observations.AgentThinkObservation,
    _observations.RecallObservation,
    _observations.MCPObservation,
    _observations.FileDownloadObservation,
    _observations.TaskTrackingObservation,
)

ACTION_TYPE_TO_CLASS: dict[str, type[Action]] = {cls.action: cls for cls in ACTION_CLASSES}
OBSERVATION_TYPE_TO_CLASS: dict[str, type[Observation]] = {
    cls.observation: cls for cls in OBSERVATION_CLASSES
}


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def field_names(cls: type) -> tuple[str, ...]:
    """Declared dataclass fields in declaration order: the body of ``args``/``extras``."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def _takes_fields_in_order(cls: type) -> bool:
    """Whether ``cls(*values)`` takes the declared field values in declaration order (the
    dataclass-generated ``__init__`` does)."""
    names = field_names(cls)
    params = list(inspect.signature(cls).parameters.values())[: len(names)]
    return [p.name for p in params] == list(names) and all(
        p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in params
    )


# The keys of ``args`` / ``extras`` exactly as event_to_dict writes them, for the classes
# that can then be built from the values positionally (which is how stored events are
# decoded fast; see action_from_dict).
ACTION_ARG_ORDER: dict[type[Action], tuple[str, ...]] = {
    cls: field_names(cls) for cls in ACTION_CLASSES if _takes_fields_in_order(cls)
}
OBSERVATION_EXTRAS_ORDER: dict[type[Observation], tuple[str, ...]] = {
    cls: field_names(cls)[1:]  # ``content`` is first and written at the top level
    for cls in OBSERVATION_CLASSES
    if _takes_fields_in_order(cls) and field_names(cls)[0] == "content"
}
