"""The Condenser seam: turn the agent's View into a smaller View, or ask to forget events.

A condenser either returns a :class:`View` to use for this step, or a
:class:`Condensation` whose action the agent returns instead of calling its LLM. The
controller publishes that action; the next step sees a View that no longer has the
forgotten events (see :mod:`openhands.memory.view`).

Concrete condensers register the config model they are built from with
:meth:`Condenser.register`, so :meth:`Condenser.from_config` can dispatch on the config.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

from openhands.events.action.agent import CondensationAction
from openhands.memory.view import View

if TYPE_CHECKING:
    from openhands.llm.llm_registry import LLMRegistry

CONDENSER_METADATA_KEY = "condenser_meta"

C = TypeVar("C", bound="type[Condenser]")


class CondenserState(Protocol):
    """What a condenser uses of the controller's ``State``: memory sits below the controller,
    so it names the two members it needs instead of the class."""

    extra_data: dict[str, Any]

    @property
    def view(self) -> View: ...


@dataclass
class Condensation:
    """The result of a condenser that wants events forgotten before the next LLM call."""

    action: CondensationAction


class Condenser(ABC):
    """Base class of all condensers."""

    _registry: ClassVar[dict[type, type[Condenser]]] = {}

    def __init__(self) -> None:
        self._metadata_batch: dict[str, Any] = {}
        self._llm_metadata: dict[str, Any] = {}

    # --- the work -------------------------------------------------------------------------

    @abstractmethod
    def condense(self, view: View) -> View | Condensation:
        """A smaller view of ``view``, or a condensation to publish instead."""

    def condensed_history(self, state: CondenserState) -> View | Condensation:
        """Condense ``state.view``, recording metadata in ``state.extra_data``."""
        self._llm_metadata = llm_metadata_for(state, self)
        with self.metadata_batch(state):
            return self.condense(state.view)

    # --- metadata -------------------------------------------------------------------------

    def add_metadata(self, key: str, value: Any) -> None:
        """Remember ``value`` for the current batch (flushed to the state afterwards)."""
        self._metadata_batch[key] = value

    def write_metadata(self, state: CondenserState) -> None:
        if self._metadata_batch:
            state.extra_data.setdefault(CONDENSER_METADATA_KEY, []).append(
                dict(self._metadata_batch)
            )
        self._metadata_batch = {}

    @contextmanager
    def metadata_batch(self, state: CondenserState) -> Iterator[None]:
        try:
            yield
        finally:
            self.write_metadata(state)

    @property
    def llm_metadata(self) -> dict[str, Any]:
        """Tags for LLM calls made while condensing (sent as ``extra_body.metadata``)."""
        return self._llm_metadata

    # --- construction ---------------------------------------------------------------------

    @classmethod
    def register(cls, config_type: type) -> Callable[[C], C]:
        """Class decorator: build instances of the decorated class from ``config_type``."""

        def decorate(condenser_cls: C) -> C:
            existing = cls._registry.get(config_type)
            if existing is not None and existing is not condenser_cls:
                raise ValueError(f"{config_type.__name__} is already registered")
            cls._registry[config_type] = condenser_cls
            return condenser_cls

        return decorate

    @classmethod
    def from_config(cls, config: Any, llm_registry: LLMRegistry) -> Condenser:
        """Build the condenser that ``config`` (one of the condenser config models) describes."""
        # Importing the package registers every built-in condenser.
        import openhands.memory.condenser  # noqa: F401

        condenser_cls = cls._registry.get(type(config))
        if condenser_cls is None:
            raise ValueError(f"Unknown condenser config: {type(config).__name__}")
        return condenser_cls.build(config, llm_registry)

    @classmethod
    def build(cls, config: Any, llm_registry: LLMRegistry) -> Condenser:
        """Create an instance from its config; overridden by condensers with settings."""
        return cls()


class RollingCondenser(Condenser, ABC):
    """A condenser that, when needed, forgets part of the history for good."""

    @abstractmethod
    def should_condense(self, view: View) -> bool: ...

    @abstractmethod
    def get_condensation(self, view: View) -> Condensation: ...

    def condense(self, view: View) -> View | Condensation:
        if self.should_condense(view):
            return self.get_condensation(view)
        return view


def llm_metadata_for(state: CondenserState, condenser: Condenser) -> dict[str, Any]:
    """The state's LLM metadata for ``condenser``: its model (``unknown`` without an
    LLM), tagged as agent ``condenser``."""
    to_metadata = getattr(state, "to_llm_metadata", None)
    if to_metadata is None:
        return {}
    llm = getattr(condenser, "llm", None)
    model_name = llm.config.model if llm is not None else "unknown"
    metadata = to_metadata(model_name=model_name, agent_name="condenser")
    return metadata if isinstance(metadata, dict) else {}
