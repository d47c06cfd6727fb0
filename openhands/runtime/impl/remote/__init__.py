"""The remote runtime: sandboxes started and stopped by a Runtime API service."""

from openhands.runtime.impl.remote.remote_runtime import RemoteRuntime

__all__ = ["RemoteRuntime"]
