"""The reference's ``CONDENSER_REGISTRY`` and ``get_condensation_metadata``.

``CONDENSER_REGISTRY`` is the very dict ``Condenser.register`` fills (config type →
condenser class); importing ``openhands.memory.condenser`` registers every built-in one.
``get_condensation_metadata(state)`` is the list of metadata batches condensers wrote to
``state.extra_data['condenser_meta']`` (``[]`` when none).
"""

from __future__ import annotations

from typing import Any

from openhands.memory.condenser.condenser import (
    CONDENSER_METADATA_KEY,
    Condenser,
    CondenserState,
)

CONDENSER_REGISTRY: dict[type, type[Condenser]] = Condenser._registry


def get_condensation_metadata(state: CondenserState) -> list[dict[str, Any]]:
    metadata = state.extra_data.get(CONDENSER_METADATA_KEY)
    return list(metadata) if metadata else []
