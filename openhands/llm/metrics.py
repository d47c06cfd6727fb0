"""Cost, latency and token accounting for LLM calls (the ``llm_metrics`` wire object)."""

from __future__ import annotations

import copy
import time
from typing import Any

from pydantic import BaseModel, Field


class Cost(BaseModel):
    model: str
    cost: float
    timestamp: float = Field(default_factory=time.time)


class ResponseLatency(BaseModel):
    model: str
    latency: float
    response_id: str


class TokenUsage(BaseModel):
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    context_window: int = 0
    per_turn_token: int = 0
    response_id: str = ""

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            model=self.model,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            context_window=max(self.context_window, other.context_window),
            per_turn_token=other.per_turn_token,
            response_id=self.response_id,
        )


class Metrics:
    """Accumulates costs, latencies and token usage of one LLM (or a merge of several)."""

    def __init__(self, model_name: str = "default") -> None:
        self.model_name = model_name
        self._accumulated_cost = 0.0
        self.max_budget_per_task: float | None = None
        self._costs: list[Cost] = []
        self._response_latencies: list[ResponseLatency] = []
        self._token_usages: list[TokenUsage] = []
        self._accumulated_token_usage = TokenUsage(model=model_name)

    # --- accumulated values ----------------------------------------------------------

    @property
    def accumulated_cost(self) -> float:
        return self._accumulated_cost

    @accumulated_cost.setter
    def accumulated_cost(self, value: float) -> None:
        if value < 0:
            raise ValueError("Total cost cannot be negative.")
        self._accumulated_cost = value

    @property
    def accumulated_token_usage(self) -> TokenUsage:
        return self._accumulated_token_usage

    @accumulated_token_usage.setter
    def accumulated_token_usage(self, value: TokenUsage) -> None:
        self._accumulated_token_usage = value

    @property
    def costs(self) -> list[Cost]:
        return self._costs

    @property
    def response_latencies(self) -> list[ResponseLatency]:
        return self._response_latencies

    @response_latencies.setter
    def response_latencies(self, value: list[ResponseLatency]) -> None:
        self._response_latencies = value

    @property
    def token_usages(self) -> list[TokenUsage]:
        return self._token_usages

    @token_usages.setter
    def token_usages(self, value: list[TokenUsage]) -> None:
        self._token_usages = value

    # --- recording -------------------------------------------------------------------

    def add_cost(self, value: float) -> None:
        if value < 0:
            raise ValueError("Added cost cannot be negative.")
        self._accumulated_cost += value
        self._costs.append(Cost(model=self.model_name, cost=value))

    def add_response_latency(self, value: float, response_id: str) -> None:
        self._response_latencies.append(
            ResponseLatency(model=self.model_name, latency=max(0.0, value), response_id=response_id)
        )

    def add_token_usage(
        self,
        prompt_tokens: int,
        completion_tokens: int,
        cache_read_tokens: int,
        cache_write_tokens: int,
        context_window: int,
        response_id: str,
    ) -> None:
        usage = TokenUsage(
            model=self.model_name,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cache_read_tokens=cache_read_tokens,
            cache_write_tokens=cache_write_tokens,
            context_window=context_window,
            per_turn_token=prompt_tokens + completion_tokens,
            response_id=response_id,
        )
        self._token_usages.append(usage)
        self._accumulated_token_usage = self._accumulated_token_usage + usage

    def merge(self, other: Metrics) -> None:
        self._accumulated_cost += other.accumulated_cost
        if other.max_budget_per_task is not None:
            self.max_budget_per_task = other.max_budget_per_task
        self._costs += other.costs
        self._token_usages += other.token_usages
        self._response_latencies += other.response_latencies
        self._accumulated_token_usage = (
            self._accumulated_token_usage + other.accumulated_token_usage
        )

    def diff(self, baseline: Metrics) -> Metrics:
        """What was added since ``baseline`` (a copy taken earlier of this object)."""
        result = Metrics(self.model_name)
        result._accumulated_cost = self._accumulated_cost - baseline.accumulated_cost
        result.max_budget_per_task = self.max_budget_per_task
        result._costs = self._costs[len(baseline.costs) :]
        result._response_latencies = self._response_latencies[len(baseline.response_latencies) :]
        result._token_usages = self._token_usages[len(baseline.token_usages) :]
        base = baseline.accumulated_token_usage
        cur = self._accumulated_token_usage
        result._accumulated_token_usage = TokenUsage(
            model=cur.model,
            prompt_tokens=cur.prompt_tokens - base.prompt_tokens,
            completion_tokens=cur.completion_tokens - base.completion_tokens,
            cache_read_tokens=cur.cache_read_tokens - base.cache_read_tokens,
            cache_write_tokens=cur.cache_write_tokens - base.cache_write_tokens,
            context_window=cur.context_window,
            per_turn_token=cur.per_turn_token,
            response_id=cur.response_id,
        )
        return result

    def copy(self) -> Metrics:
        return copy.deepcopy(self)

    # --- wire form ---------------------------------------------------------------------

    def get(self) -> dict[str, Any]:
        return {
            "accumulated_cost": self._accumulated_cost,
            "max_budget_per_task": self.max_budget_per_task,
            "accumulated_token_usage": self._accumulated_token_usage.model_dump(),
            "costs": [c.model_dump() for c in self._costs],
            "response_latencies": [r.model_dump() for r in self._response_latencies],
            "token_usages": [t.model_dump() for t in self._token_usages],
        }

    @classmethod
    def from_dict(cls, data: Any) -> Metrics:
        """Rebuild from the wire form; missing keys take defaults, a non-object gives empty metrics."""
        metrics = cls()
        if not isinstance(data, dict):
            return metrics
        metrics._accumulated_cost = float(data.get("accumulated_cost", 0.0) or 0.0)
        metrics.max_budget_per_task = data.get("max_budget_per_task")
        metrics._costs = [Cost(**c) for c in data.get("costs", [])]
        metrics._response_latencies = [
            ResponseLatency(**r) for r in data.get("response_latencies", [])
        ]
        metrics._token_usages = [TokenUsage(**t) for t in data.get("token_usages", [])]
        if "accumulated_token_usage" in data and isinstance(data["accumulated_token_usage"], dict):
            metrics._accumulated_token_usage = TokenUsage(**data["accumulated_token_usage"])
        return metrics

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Metrics) and self.get() == other.get()

    def __repr__(self) -> str:
        return f"Metrics({self.get()!r})"
