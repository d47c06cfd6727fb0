"""The ``conversation_stats.pkl`` format: ``base64(pickle({service_id: Metrics}))``.

0.59 pickles its ``Metrics`` objects as they are: a ``Metrics`` instance whose state holds
``_accumulated_cost``, ``_max_budget_per_task``, ``model_name``, ``_costs``,
``_response_latencies``, ``_token_usages`` and ``_accumulated_token_usage``, the records
being pydantic models (``Cost``, ``ResponseLatency``, ``TokenUsage``) from
``openhands.llm.metrics``. We write the same, so 0.59 and we read each other's files.

Reading never runs code from the file. The unpickler resolves only the four names above,
each to an inert stand-in that merely keeps the state it is given; the stand-ins are then
converted into our classes through their validated wire form (``Metrics.from_dict``). Any
other global a pickle names is refused. Files from earlier versions of this project, which
held each service's ``Metrics.get()`` dict, are read as well.
"""

from __future__ import annotations

import base64
import copyreg
import io
import pickle
import sys
from collections.abc import Mapping
from typing import Any

from openhands.llm.metrics import Metrics

_METRICS_MODULE = Metrics.__module__

METRICS_MODULE = "openhands.llm.metrics"


class _Pickled:
    """Stand-in for a pickled object of an allowed class: keeps its state, nothing else."""

    state: Any = None  # a class default: unpickling creates instances without __init__

    def __setstate__(self, state: Any) -> None:
        self.state = state


class _PickledMetrics(_Pickled):
    pass


class _PickledRecord(_Pickled):
    """A pickled pydantic record (Cost, ResponseLatency, TokenUsage)."""

    def fields(self) -> dict[str, Any]:
        state = self.state
        if isinstance(state, dict) and isinstance(state.get("__dict__"), dict):
            return dict(state["__dict__"])  # pydantic v2: {"__dict__": fields, ...}
        if isinstance(state, dict):
            return dict(state)
        raise ValueError(f"unexpected state for a metrics record: {type(state).__name__}")


class _PickledCost(_PickledRecord):
    pass


class _PickledResponseLatency(_PickledRecord):
    pass


class _PickledTokenUsage(_PickledRecord):
    pass


_ALLOWED_GLOBALS: dict[tuple[str, str], type] = {
    (METRICS_MODULE, "Metrics"): _PickledMetrics,
    (METRICS_MODULE, "Cost"): _PickledCost,
    (METRICS_MODULE, "ResponseLatency"): _PickledResponseLatency,
    (METRICS_MODULE, "TokenUsage"): _PickledTokenUsage,
    # Sets hold pydantic's fields-set; pickle protocols below 4 name the builtin.
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
}


class _AllowListUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        try:
            return _ALLOWED_GLOBALS[(module, name)]
        except KeyError:
            raise pickle.UnpicklingError(f"refusing to load {module}.{name}") from None


# --- writing --------------------------------------------------------------------------------


def _metrics_state(metrics: Metrics) -> dict[str, Any]:
    """0.59's attribute names and order for a Metrics object."""
    return {
        "_accumulated_cost": metrics.accumulated_cost,
        "_max_budget_per_task": metrics.max_budget_per_task,
        "_costs": list(metrics.costs),
        "_response_latencies": list(metrics.response_latencies),
        "model_name": metrics.model_name,
        "_token_usages": list(metrics.token_usages),
        "_accumulated_token_usage": metrics.accumulated_token_usage,
    }


class _StatsPickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        cls = type(obj)
        if cls.__module__ == _METRICS_MODULE and cls.__qualname__ == "Metrics":
            # What pickling 0.59's Metrics gives: NEWOBJ of the class, then its attributes.
            # (pickle recognises copyreg.__newobj__, which typeshed does not declare.)
            newobj = copyreg.__newobj__  # type: ignore[attr-defined]
            return newobj, (cls,), _metrics_state(obj)
        return NotImplemented


def _current_metrics_class() -> type[Metrics]:
    """``Metrics`` as the module is now: pickle names classes through their module, so an
    object of a class from before a module reload (tests that clear sys.modules do this)
    is copied into the current class first."""
    module = sys.modules.get(_METRICS_MODULE)
    current = getattr(module, "Metrics", None)
    return current if isinstance(current, type) else Metrics


def encode_stats(stats: Mapping[str, Metrics]) -> str:
    """``base64(pickle(dict))`` as 0.59 writes it."""
    plain: dict[str, Metrics] = {}
    current = _current_metrics_class()
    for service_id, metrics in stats.items():
        if type(metrics) is not current:  # a subclass would be pickled under its own name
            copy = current.from_dict(metrics.get())
            copy.model_name = metrics.model_name
            metrics = copy
        plain[service_id] = metrics
    buffer = io.BytesIO()
    _StatsPickler(buffer, protocol=4).dump(plain)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


# --- reading --------------------------------------------------------------------------------


def _record_fields(value: Any) -> dict[str, Any]:
    if isinstance(value, _PickledRecord):
        return value.fields()
    if isinstance(value, dict):
        return value
    raise ValueError(f"unexpected metrics record: {type(value).__name__}")


def _records(value: Any) -> list[dict[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"expected a list of metrics records, got {type(value).__name__}")
    return [_record_fields(item) for item in value]


def _metrics_from_pickled(pickled: _PickledMetrics) -> Metrics:
    state = pickled.state
    if not isinstance(state, dict):
        raise ValueError("pickled Metrics has no attribute dict")
    wire: dict[str, Any] = {
        "accumulated_cost": state.get("_accumulated_cost", 0.0),
        "max_budget_per_task": state.get("_max_budget_per_task"),
        "costs": _records(state.get("_costs")),
        "response_latencies": _records(state.get("_response_latencies")),
        "token_usages": _records(state.get("_token_usages")),
    }
    if state.get("_accumulated_token_usage") is not None:
        wire["accumulated_token_usage"] = _record_fields(state["_accumulated_token_usage"])
    metrics = Metrics.from_dict(wire)
    model_name = state.get("model_name")
    if isinstance(model_name, str):
        metrics.model_name = model_name
    return metrics


def _to_metrics(value: Any) -> Metrics:
    if isinstance(value, _PickledMetrics):
        return _metrics_from_pickled(value)
    if isinstance(value, dict):  # this project's earlier format: Metrics.get()
        return Metrics.from_dict(value)
    raise ValueError(f"unexpected conversation stats entry: {type(value).__name__}")


def decode_stats(encoded: str | bytes) -> dict[str, Metrics]:
    """Inverse of :func:`encode_stats`; raises ValueError on anything it will not read."""
    try:
        raw = base64.b64decode(encoded.strip(), validate=True)
        data = _AllowListUnpickler(io.BytesIO(raw)).load()
        if not isinstance(data, dict):
            raise ValueError("conversation stats are not a mapping")
        return {str(service_id): _to_metrics(value) for service_id, value in data.items()}
    except Exception as exc:
        # A damaged or hostile file can fail in many ways (bad base64, truncated or
        # malformed pickle, refused global, wrong shapes); every one means "unreadable".
        raise ValueError(f"unreadable conversation stats: {exc}") from exc
