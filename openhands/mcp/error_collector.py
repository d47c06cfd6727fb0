"""Errors of MCP servers that could not be used, kept for whoever wants to show them.

Connecting to MCP servers happens in the background of a conversation and a failing
server is only logged and skipped. Front ends that want to tell the user (the terminal
app does, cli.md §5.2) read the errors from the module-level ``mcp_error_collector``.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field


@dataclass
class MCPError:
    """One failure of one MCP server."""

    timestamp: float
    server_name: str
    server_type: str
    error_message: str
    exception_details: str | None = None


@dataclass
class MCPErrorCollector:
    """A thread-safe list of MCPErrors; collecting is on until ``disable_collection``."""

    _errors: list[MCPError] = field(default_factory=list)
    _collection_enabled: bool = True
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add_error(
        self,
        server_name: str,
        server_type: str,
        error_message: str,
        exception_details: str | None = None,
    ) -> None:
        """Record an error, unless collection is disabled."""
        with self._lock:
            if not self._collection_enabled:
                return
            self._errors.append(
                MCPError(time.time(), server_name, server_type, error_message, exception_details)
            )

    def get_errors(self) -> list[MCPError]:
        """The errors so far, oldest first (a copy: changing it changes nothing here)."""
        with self._lock:
            return list(self._errors)

    def has_errors(self) -> bool:
        with self._lock:
            return bool(self._errors)

    def clear_errors(self) -> None:
        with self._lock:
            self._errors.clear()

    def enable_collection(self) -> None:
        with self._lock:
            self._collection_enabled = True

    def disable_collection(self) -> None:
        with self._lock:
            self._collection_enabled = False

    def get_error_count(self) -> int:
        with self._lock:
            return len(self._errors)


# The process-wide collector that create_mcp_clients records into.
mcp_error_collector = MCPErrorCollector()
