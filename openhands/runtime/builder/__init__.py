"""Image builders: the RuntimeBuilder seam (base.py), its Docker implementation (docker.py)
and the Runtime API one (remote.py)."""

from openhands.runtime.builder.base import ProgressCallback, RuntimeBuilder
from openhands.runtime.builder.docker import DockerRuntimeBuilder
from openhands.runtime.builder.remote import RemoteRuntimeBuilder

__all__ = ["DockerRuntimeBuilder", "ProgressCallback", "RemoteRuntimeBuilder", "RuntimeBuilder"]
