"""What can go wrong in the Runtime API service; `app.py` maps each type to one HTTP status."""

from __future__ import annotations


class RuntimeApiError(Exception):
    """Base of the service's errors; the message is the response's ``detail``."""


class UnknownRuntime(RuntimeApiError):
    """No sandbox with that runtime id or session id (404)."""


class UnknownBuild(RuntimeApiError):
    """No build with that id (404)."""


class RuntimeConflict(RuntimeApiError):
    """The sandbox is not in a state that allows the request, e.g. resuming a stopped one (409)."""


class ImageNotAvailable(RuntimeApiError):
    """No engine of the pool has the image, and it is never pulled (400)."""


class EngineError(RuntimeApiError):
    """A Docker engine refused or did not answer (503)."""


class InvalidRequest(RuntimeApiError):
    """A request the service cannot act on, e.g. a build context that is not a gzip tar (400)."""
