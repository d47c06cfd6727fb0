"""A tenacity stop condition: give up retrying once the process is shutting down."""

from __future__ import annotations

from tenacity import RetryCallState
from tenacity.stop import stop_base

from openhands.utils.shutdown_listener import should_exit


class stop_if_should_exit(stop_base):
    """Stop when a shutdown signal has arrived (see ``shutdown_listener``)."""

    def __call__(self, retry_state: RetryCallState) -> bool:
        return should_exit()
