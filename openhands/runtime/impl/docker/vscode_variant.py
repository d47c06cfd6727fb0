"""The VS Code image variant, built in the background (issue 24 item 7).

VS Code is on by default (``[sandbox] enable_vscode``, env ``SANDBOX_ENABLE_VSCODE``), but its
image variant (code-server on top of the runtime image) takes minutes to build the first
time. Nobody waits for it: a sandbox asks ``VSCODE_VARIANT.image_for(...)`` and gets the
variant when it exists; otherwise it starts on the plain image (no VS Code), and that first
request starts the variant's build on a background thread. Sandboxes (and warm-pool
refills) created once the build is done use the variant.

One build at a time per process, on a thread at the lowest CPU priority (the builder's own
processes, e.g. npm and the docker CLI, inherit it); its start, end and failure are logged,
and ``status()`` reports the state and the last progress line for the UI's VS Code tab. A
failed build is not retried by this process (it would fail again the same way); the log
and the status say why.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from openhands.runtime.builder.base import RuntimeBuilder
from openhands.runtime.utils.runtime_build import vscode_variant_name

logger = logging.getLogger(__name__)

# Progress lines can be long (build output): the status keeps the end of the last one.
MAX_MESSAGE_CHARS = 300


class VariantState(StrEnum):
    OFF = "off"  # enable_vscode = false
    UNKNOWN = "unknown"  # no Docker sandbox asked for it yet
    BUILDING = "building"
    READY = "ready"
    FAILED = "failed"


@dataclass(frozen=True)
class VariantStatus:
    state: VariantState
    image: str | None = None
    message: str | None = None


# Builds the variant of the plain image for the caller's settings, reporting progress lines;
# returns the variant's name.
BuildVariant = Callable[[Callable[[str], None]], str]


class VSCodeVariantBuilds:
    """The process's background builds of the VS Code variant (one at a time)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._status = VariantStatus(VariantState.UNKNOWN)
        self._failed: set[str] = set()  # plain images whose variant failed to build
        self._building: str | None = None
        self._listeners: list[Callable[[], None]] = []

    def add_ready_listener(self, listener: Callable[[], None]) -> None:
        """``listener()`` runs after each successful build (a warm pool refreshes)."""
        with self._lock:
            self._listeners.append(listener)

    def remove_ready_listener(self, listener: Callable[[], None]) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def status(self) -> VariantStatus:
        with self._lock:
            return self._status

    def image_for(
        self, plain_image: str, builder: RuntimeBuilder, build: BuildVariant
    ) -> str | None:
        """The VS Code variant of ``plain_image`` if it exists; else None, after starting
        its build in the background (unless one is running or it failed before)."""
        variant = vscode_variant_name(plain_image)
        if builder.image_exists(variant):
            with self._lock:
                if self._building is None:
                    self._status = VariantStatus(VariantState.READY, variant)
            return variant
        with self._lock:
            if self._building is not None or plain_image in self._failed:
                return None
            self._building = plain_image
            self._status = VariantStatus(
                VariantState.BUILDING, variant, "Starting the VS Code image build"
            )
            self._thread = threading.Thread(
                target=self._build,
                args=(plain_image, build),
                name="vscode-variant-build",
                daemon=True,
            )
            self._thread.start()
        return None

    def _build(self, plain_image: str, build: BuildVariant) -> None:
        with contextlib.suppress(OSError, AttributeError):
            # Lowest CPU priority for this thread and the processes it starts.
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        logger.info(
            "Building the VS Code sandbox image in the background; sandboxes started "
            "before it is ready have no VS Code"
        )

        def progress(line: str) -> None:
            text = line.strip()
            if not text:
                return
            with self._lock:
                self._status = VariantStatus(
                    VariantState.BUILDING, self._status.image, text[-MAX_MESSAGE_CHARS:]
                )

        try:
            image = build(progress)
        except Exception as error:
            logger.warning("The VS Code sandbox image could not be built: %s", error)
            with self._lock:
                self._failed.add(plain_image)
                self._building = None
                message = str(error).strip().splitlines()[-1:] or ["unknown error"]
                self._status = VariantStatus(
                    VariantState.FAILED, None, message[0][-MAX_MESSAGE_CHARS:]
                )
            return
        logger.info("The VS Code sandbox image %s is ready: new sandboxes have VS Code", image)
        with self._lock:
            self._building = None
            self._status = VariantStatus(VariantState.READY, image)
            listeners = list(self._listeners)
        for listener in listeners:
            listener()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the running build, if any (tests and tools); True when none runs."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True


VSCODE_VARIANT = VSCodeVariantBuilds()
