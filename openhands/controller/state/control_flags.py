"""Iteration and budget limits of a conversation (shared by a controller and its delegates).

A flag counts up (``step``) and raises once the limit is reached. When the user lets the
agent continue after an ERROR, ``increase_limit`` makes room for more work according to
the extension rules: the iteration limit grows by the initial amount only in interactive
mode; the budget limit becomes ``current + initial amount`` in both modes.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

ITERATION_LIMIT_MESSAGE = (
    "Agent reached maximum iteration. Current iteration: {c}, max iteration: {m}"
)
# No space after the period: this is the text users and tests see.
BUDGET_LIMIT_MESSAGE = (
    "Agent reached maximum budget for conversation.Current budget: {c:.2f}, max budget: {m:.2f}"
)


@dataclass
class IterationControlFlag:
    limit_increase_amount: int
    current_value: int
    max_value: int
    headless_mode: bool = False
    _hit_limit: bool = False

    def reached_limit(self) -> bool:
        self._hit_limit = self.current_value >= self.max_value
        return self._hit_limit

    def increase_limit(self, headless_mode: bool) -> None:
        """Extend after ERROR → RUNNING: only interactive sessions get more iterations."""
        if not headless_mode and self._hit_limit:
            self.max_value += self.limit_increase_amount
            self._hit_limit = False

    def step(self) -> None:
        """Count one step; raise RuntimeError (without counting) when the limit is reached."""
        if self.reached_limit():
            raise RuntimeError(
                ITERATION_LIMIT_MESSAGE.format(c=self.current_value, m=self.max_value)
            )
        self.current_value += 1

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IterationControlFlag:
        return cls(
            limit_increase_amount=int(data["limit_increase_amount"]),
            current_value=int(data["current_value"]),
            max_value=int(data["max_value"]),
            headless_mode=bool(data.get("headless_mode", False)),
            _hit_limit=bool(data.get("_hit_limit", False)),
        )


@dataclass
class BudgetControlFlag:
    """``current_value`` is set from the accumulated LLM cost before each step."""

    limit_increase_amount: float
    current_value: float
    max_value: float
    headless_mode: bool = False
    _hit_limit: bool = False

    def reached_limit(self) -> bool:
        self._hit_limit = self.current_value >= self.max_value
        return self._hit_limit

    def increase_limit(self, headless_mode: bool) -> None:
        """Extend after ERROR → RUNNING: the budget restarts from what was spent so far."""
        if self._hit_limit:
            self.max_value = self.current_value + self.limit_increase_amount
            self._hit_limit = False

    def step(self) -> None:
        """Raise RuntimeError when the spent budget reached the maximum."""
        if self.reached_limit():
            raise RuntimeError(BUDGET_LIMIT_MESSAGE.format(c=self.current_value, m=self.max_value))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BudgetControlFlag:
        return cls(
            limit_increase_amount=float(data["limit_increase_amount"]),
            current_value=float(data["current_value"]),
            max_value=float(data["max_value"]),
            headless_mode=bool(data.get("headless_mode", False)),
            _hit_limit=bool(data.get("_hit_limit", False)),
        )
