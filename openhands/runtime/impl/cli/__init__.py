"""The CLI runtime: actions run directly on the host, in the user's workspace."""

from openhands.runtime.impl.cli.cli_runtime import CLIRuntime

__all__ = ["CLIRuntime"]
