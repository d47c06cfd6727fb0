"""Image builders: the RuntimeBuilder seam (base.py) and its Docker implementation (docker.py)."""

from openhands.runtime.builder.base import ProgressCallback, RuntimeBuilder
from openhands.runtime.builder.docker import DockerRuntimeBuilder

__all__ = ["DockerRuntimeBuilder", "ProgressCallback", "RuntimeBuilder"]
