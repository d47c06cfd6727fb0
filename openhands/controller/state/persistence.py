"""Saving and loading a :class:`State` as versioned JSON.

The file keeps the reference's name (``agent_state.pkl`` in the conversation directory)
so existing layouts and cleanup code still find it, but its content is a JSON object::

    {"format": "openhands-agent-state", "version": 1, "state": {...}}

Left out, as in the reference: ``history`` (rebuilt from the event stream), the view
cache and ``conversation_stats`` (saved in their own file). For conversations written
by the reference, a base64 pickle is still read, through an unpickler that only accepts
the handful of classes a State is made of.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import pickle
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from openhands.controller.state.control_flags import BudgetControlFlag, IterationControlFlag
from openhands.core.schema import AgentState
from openhands.llm.metrics import Metrics
from openhands.storage.locations import get_conversation_agent_state_filename

if TYPE_CHECKING:
    from openhands.controller.state.state import State
    from openhands.storage.files import FileStore

FORMAT_NAME = "openhands-agent-state"
FORMAT_VERSION = 1


# --- public entry points ------------------------------------------------------------------


def save_state(state: State, sid: str, file_store: FileStore, user_id: str | None) -> None:
    payload = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "state": state_to_dict(state)}
    text = json.dumps(payload, default=_json_fallback)
    file_store.write(get_conversation_agent_state_filename(sid, user_id), text)
    if user_id:
        # The conversation moved under its user: drop the copy at the user-less path.
        file_store.delete(get_conversation_agent_state_filename(sid))


def load_state(sid: str, file_store: FileStore, user_id: str | None) -> State:
    """Raises FileNotFoundError when nothing is saved, ValueError when it is unreadable."""
    text = _read_first(
        file_store,
        [get_conversation_agent_state_filename(sid, user_id)]
        + ([get_conversation_agent_state_filename(sid)] if user_id else []),
    )
    return decode_state(text)


def decode_state(text: str) -> State:
    stripped = text.strip()
    if stripped.startswith("{"):
        payload = json.loads(stripped)
        if payload.get("format") != FORMAT_NAME:
            raise ValueError("not an agent state file")
        version = payload.get("version")
        if version != FORMAT_VERSION:
            raise ValueError(f"unsupported agent state version {version!r}")
        return state_from_dict(payload["state"])
    return _decode_legacy_pickle(stripped)


# --- JSON mapping ---------------------------------------------------------------------------


def state_to_dict(state: State) -> dict[str, Any]:
    return {
        "session_id": state.session_id,
        "user_id": state.user_id,
        "iteration_flag": state.iteration_flag.to_dict(),
        "budget_flag": state.budget_flag.to_dict() if state.budget_flag else None,
        "confirmation_mode": state.confirmation_mode,
        "inputs": state.inputs,
        "outputs": state.outputs,
        "agent_state": state.agent_state.value,
        "resume_state": state.resume_state.value if state.resume_state else None,
        "delegate_level": state.delegate_level,
        "start_id": state.start_id,
        "end_id": state.end_id,
        "parent_metrics_snapshot": _metrics_to_dict(state.parent_metrics_snapshot),
        "parent_iteration": state.parent_iteration,
        "extra_data": state.extra_data,
        "last_error": state.last_error,
        "metrics": _metrics_to_dict(state.metrics),
    }


def state_from_dict(data: dict[str, Any]) -> State:
    from openhands.controller.state.state import State

    budget = data.get("budget_flag")
    snapshot = data.get("parent_metrics_snapshot")
    resume = data.get("resume_state")
    state = State(
        session_id=data.get("session_id", ""),
        user_id=data.get("user_id"),
        budget_flag=BudgetControlFlag.from_dict(budget) if budget else None,
        confirmation_mode=bool(data.get("confirmation_mode", False)),
        inputs=dict(data.get("inputs") or {}),
        outputs=dict(data.get("outputs") or {}),
        agent_state=AgentState(data.get("agent_state", AgentState.LOADING.value)),
        resume_state=AgentState(resume) if resume else None,
        delegate_level=int(data.get("delegate_level", 0)),
        start_id=int(data.get("start_id", -1)),
        end_id=int(data.get("end_id", -1)),
        parent_metrics_snapshot=_metrics_from_dict(snapshot) if snapshot else None,
        parent_iteration=int(data.get("parent_iteration", 100)),
        extra_data=dict(data.get("extra_data") or {}),
        last_error=data.get("last_error", ""),
        metrics=_metrics_from_dict(data.get("metrics") or {}),
    )
    if data.get("iteration_flag"):
        state.iteration_flag = IterationControlFlag.from_dict(data["iteration_flag"])
    return state


def _metrics_to_dict(metrics: Metrics | None) -> dict[str, Any] | None:
    if metrics is None:
        return None
    return {"model_name": metrics.model_name, **metrics.get()}


def _metrics_from_dict(data: dict[str, Any]) -> Metrics:
    metrics = Metrics.from_dict(data)
    metrics.model_name = data.get("model_name", metrics.model_name)
    return metrics


def _json_fallback(value: Any) -> Any:
    """Inputs/outputs/extra data may hold non-JSON values; keep what can be kept."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, Metrics):
        return value.get()
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    return str(value)


def _read_first(file_store: FileStore, paths: list[str]) -> str:
    for path in paths:
        try:
            return file_store.read(path)
        except FileNotFoundError:
            continue
    raise FileNotFoundError(f"no saved agent state at {paths[0]}")


# --- legacy: base64(pickle(State)) as written by the reference --------------------------------

# module-qualified names a reference State pickle refers to → the classes we load them as.
_LEGACY_CLASSES: dict[tuple[str, str], Any] = {
    ("openhands.core.schema.agent", "AgentState"): AgentState,
    ("openhands.core.schema", "AgentState"): AgentState,
    ("openhands.controller.state.control_flags", "IterationControlFlag"): IterationControlFlag,
    ("openhands.controller.state.control_flags", "BudgetControlFlag"): BudgetControlFlag,
    ("openhands.llm.metrics", "Metrics"): Metrics,
    ("copyreg", "_reconstructor"): __import__("copyreg")._reconstructor,
    ("copyreg", "__newobj__"): __import__("copyreg").__newobj__,
    ("builtins", "object"): object,
    ("builtins", "dict"): dict,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
}


class _LegacyUnpickler(pickle.Unpickler):
    """Loads only the classes above (plus State and the metric records); nothing else."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("openhands.controller.state.state", "State"):
            return _LegacyState
        if (module, name) == ("openhands.controller.state.state", "TrafficControlState"):
            from openhands.controller.state.state import TrafficControlState

            return TrafficControlState
        if module == "openhands.llm.metrics" and name in {"Cost", "ResponseLatency", "TokenUsage"}:
            from openhands.llm import metrics

            return getattr(metrics, name)
        if module.startswith("openhands.events"):
            # Old states may carry events (history/delegates); they are never needed.
            return _Discarded
        try:
            return _LEGACY_CLASSES[(module, name)]
        except KeyError:
            raise pickle.UnpicklingError(f"refusing to load {module}.{name}") from None


class _Discarded:
    """Stand-in for anything from a legacy pickle that we drop after loading."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __setstate__(self, state: Any) -> None:
        pass


class _LegacyState:
    """Receives a reference State's pickled attributes; converted by `_decode_legacy_pickle`."""

    def __setstate__(self, attrs: dict[str, Any]) -> None:
        self.attrs = attrs


def _decode_legacy_pickle(text: str) -> State:
    try:
        raw = base64.b64decode(text, validate=True)
        loaded = _LegacyUnpickler(io.BytesIO(raw)).load()
    except (binascii.Error, pickle.UnpicklingError, EOFError, ValueError, TypeError) as exc:
        raise ValueError(f"unreadable agent state: {exc}") from exc
    if not isinstance(loaded, _LegacyState):
        raise ValueError("agent state pickle does not hold a State")
    return _state_from_legacy_attrs(loaded.attrs)


def _state_from_legacy_attrs(attrs: dict[str, Any]) -> State:
    from openhands.controller.state.state import State, upgrade_legacy_attrs

    upgraded = upgrade_legacy_attrs(attrs)
    state = State()
    for name in state.__dataclass_fields__:
        if name in upgraded and name not in ("history", "conversation_stats"):
            setattr(state, name, upgraded[name])
    if not isinstance(state.iteration_flag, IterationControlFlag):
        state.iteration_flag = State().iteration_flag
    if not isinstance(state.agent_state, AgentState):
        state.agent_state = AgentState(state.agent_state)
    return state
