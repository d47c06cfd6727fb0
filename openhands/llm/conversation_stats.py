"""Per-service LLM metrics of one conversation, saved to and restored from the file store.

The file (``conversation_stats.pkl`` in the conversation directory) holds
``base64(pickle({service_id: Metrics}))`` in 0.59's exact layout; ``metrics_pickle`` reads
it without executing anything from it. A missing, unreadable or refused file gives empty
stats (logged), never an error.
"""

from __future__ import annotations

from threading import Lock
from typing import Protocol

from openhands.core.logger import openhands_logger as logger
from openhands.llm.llm_registry import RegistryEvent
from openhands.llm.metrics import Metrics
from openhands.llm.metrics_pickle import decode_stats, encode_stats
from openhands.storage.locations import get_conversation_stats_filename

__all__ = ["ConversationStats", "decode_stats", "encode_stats"]


class _FileStore(Protocol):
    def read(self, path: str) -> str: ...

    def write(self, path: str, contents: str | bytes) -> None: ...


class ConversationStats:
    """Maps service id → that LLM's Metrics; registered LLMs share the object (live values).

    ``restored_metrics`` holds what was read from the file for services that have not
    registered (again) yet; a service that registers takes its restored metrics over.
    """

    def __init__(
        self, file_store: _FileStore | None, conversation_id: str, user_id: str | None = None
    ) -> None:
        self.file_store = file_store
        self.conversation_id = conversation_id
        self.user_id = user_id
        self.metrics_path = get_conversation_stats_filename(conversation_id, user_id)
        self.service_to_metrics: dict[str, Metrics] = {}
        self.restored_metrics: dict[str, Metrics] = {}
        # Saves come from the controller and from session teardown, on different threads.
        self._save_lock = Lock()
        self.maybe_restore_metrics()

    def save_metrics(self) -> None:
        """Write every known service: the registered ones and those only restored so far."""
        if self.file_store is None:
            return
        with self._save_lock:
            clashing = self.restored_metrics.keys() & self.service_to_metrics.keys()
            if clashing:
                # register_llm moves a service out of restored_metrics, so this means
                # someone filled both by hand; the live metrics win.
                logger.error(
                    "Services both restored and registered: %s; saving the registered ones",
                    sorted(clashing),
                    extra={"conversation_id": self.conversation_id},
                )
            stats = {**self.restored_metrics, **self.service_to_metrics}
            self.file_store.write(self.metrics_path, encode_stats(stats))

    def maybe_restore_metrics(self) -> None:
        if self.file_store is None or not self.conversation_id:
            return
        try:
            encoded = self.file_store.read(self.metrics_path)
        except FileNotFoundError:
            return
        try:
            self.restored_metrics = decode_stats(encoded)
        except ValueError as exc:
            logger.warning("Ignoring conversation stats at %s: %s", self.metrics_path, exc)

    def register_llm(self, event: RegistryEvent) -> None:
        """Registry subscriber: restore the service's saved metrics into its LLM, then track it."""
        llm, service_id = event.llm, event.service_id
        restored = self.restored_metrics.pop(service_id, None)
        if restored is not None:
            restored.model_name = llm.metrics.model_name
            llm.metrics = restored
        self.service_to_metrics[service_id] = llm.metrics

    def get_combined_metrics(self) -> Metrics:
        total = Metrics()
        for metrics in self.service_to_metrics.values():
            total.merge(metrics)
        return total

    def get_metrics_for_service(self, service_id: str) -> Metrics:
        if service_id not in self.service_to_metrics:
            raise KeyError(f"LLM service does not exist {service_id}")
        return self.service_to_metrics[service_id]

    def merge_and_save(self, other: ConversationStats) -> None:
        """Take over ``other``'s restored metrics (theirs win on a clash) and save.

        Meant for two freshly restored instances (e.g. folding one conversation's costs
        into another's) before any LLM registers: only ``restored_metrics`` are merged, and
        services that cost nothing are dropped from both sides. Registered services found on
        either side are left where they are and reported as an error.
        """
        if self.service_to_metrics or other.service_to_metrics:
            logger.error(
                "merge_and_save expects no registered services; merging restored ones only",
                extra={
                    "conversation_id": self.conversation_id,
                    "registered": sorted(self.service_to_metrics),
                    "other_registered": sorted(other.service_to_metrics),
                },
            )
        for stats in (self, other):
            stats.restored_metrics = {
                service_id: metrics
                for service_id, metrics in stats.restored_metrics.items()
                if metrics.accumulated_cost != 0
            }
        self.restored_metrics.update(other.restored_metrics)
        self.save_metrics()
