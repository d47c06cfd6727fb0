"""The critic interface and what a critic returns."""

from __future__ import annotations

from abc import ABC, abstractmethod

from pydantic import BaseModel

from openhands.events.event import Event

# A score at or above this counts as a success.
SUCCESS_THRESHOLD = 0.5


class CriticResult(BaseModel):
    """A score (0 = failed, 1 = succeeded) and a short reason for it."""

    score: float
    message: str

    @property
    def success(self) -> bool:
        return self.score >= SUCCESS_THRESHOLD


class BaseCritic(ABC):
    """Judges a run from its events and, when there is one, the git patch it produced."""

    @abstractmethod
    def evaluate(self, events: list[Event], git_patch: str | None = None) -> CriticResult: ...
