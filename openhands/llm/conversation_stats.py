"""Per-service LLM metrics of one conversation, saved to and restored from the file store.

The file (``conversation_stats.pkl`` in the conversation directory) holds
``base64(pickle(dict[service_id, metrics]))``. We write each service's metrics in their
plain wire form (``Metrics.get()``), so reading needs no class lookups: the file is read
with an unpickler that accepts built-in containers and scalars only. A missing, corrupt or
foreign file gives empty stats.
"""

from __future__ import annotations

import base64
import binascii
import io
import pickle
from typing import Any, Protocol

from openhands.core.logger import openhands_logger as logger
from openhands.llm.llm_registry import RegistryEvent
from openhands.llm.metrics import Metrics
from openhands.storage.locations import get_conversation_stats_filename


class _FileStore(Protocol):
    def read(self, path: str) -> str: ...

    def write(self, path: str, contents: str | bytes) -> None: ...


class _PlainDataUnpickler(pickle.Unpickler):
    """Refuses every class or function reference: only plain data can come out."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refusing to load {module}.{name}")


def encode_stats(stats: dict[str, Metrics]) -> str:
    plain = {service_id: metrics.get() for service_id, metrics in stats.items()}
    return base64.b64encode(pickle.dumps(plain)).decode("ascii")


def decode_stats(encoded: str | bytes) -> dict[str, Metrics]:
    """Inverse of :func:`encode_stats`. Raises ValueError on anything it cannot read."""
    try:
        raw = base64.b64decode(encoded, validate=True)
        data = _PlainDataUnpickler(io.BytesIO(raw)).load()
    except (binascii.Error, pickle.UnpicklingError, EOFError, ValueError, TypeError) as exc:
        raise ValueError(f"unreadable conversation stats: {exc}") from exc
    if not isinstance(data, dict):
        raise ValueError("conversation stats are not a mapping")
    return {str(k): Metrics.from_dict(v) for k, v in data.items()}


class ConversationStats:
    """Maps service id → that LLM's Metrics; registered LLMs share the object (live values)."""

    def __init__(
        self, file_store: _FileStore | None, conversation_id: str, user_id: str | None = None
    ) -> None:
        self.file_store = file_store
        self.conversation_id = conversation_id
        self.user_id = user_id
        self.metrics_path = get_conversation_stats_filename(conversation_id, user_id)
        self.service_to_metrics: dict[str, Metrics] = {}
        self.restored_metrics: dict[str, Metrics] = {}
        self.maybe_restore_metrics()

    def save_metrics(self) -> None:
        if self.file_store is None:
            return
        # Services restored from disk but not (yet) registered again are kept too.
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
            raise KeyError(f"no LLM registered for service {service_id}")
        return self.service_to_metrics[service_id]

    def merge_and_save(self, other: ConversationStats) -> None:
        """Take over another instance's services (theirs win on a clash) and save."""
        self.service_to_metrics.update(other.service_to_metrics)
        self.save_metrics()
