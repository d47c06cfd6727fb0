"""RemoteRuntimeBuilder: images built by the Runtime API service (remote-runtime.md §4 #3-#5).

The build context travels as one multipart field: the base64 text of a gzip tar of the build
folder. The service builds it, pushes it to its registry and reports progress at
``/build_status``; existence checks ask ``/image_exists``. Nothing is built or stored locally.
"""

from __future__ import annotations

import base64
import io
import tarfile
import time
from pathlib import Path

import httpx

from openhands.core.logger import openhands_logger as logger
from openhands.runtime.builder.base import ProgressCallback, RuntimeBuilder
from openhands.runtime.errors import AgentRuntimeBuildError
from openhands.runtime.utils.request import RequestHTTPError, send_request
from openhands.utils.shutdown_listener import should_exit, sleep_if_should_continue

BUILD_FAILED_STATUSES = frozenset({"FAILURE", "INTERNAL_ERROR", "TIMEOUT", "CANCELLED", "EXPIRED"})


def encode_build_context(path: Path) -> str:
    """The base64 text of a gzip tar of ``path`` (its contents at the archive root, ``.``)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(path, arcname=".")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _json_object(response: httpx.Response) -> dict[str, object]:
    body = response.json()
    if not isinstance(body, dict):
        raise AgentRuntimeBuildError(f"Runtime API answered {body!r}, expected a JSON object")
    return body


class RemoteRuntimeBuilder(RuntimeBuilder):
    """Builds and looks up images through a Runtime API at ``api_url``.

    The intervals are attributes so tests (and impatient callers) can shorten them.
    """

    poll_interval: float = 30.0  # between two /build_status requests
    build_timeout: float = 30 * 60.0
    rate_limit_pause: float = 30.0  # after /build answered 429 even after its own retries
    request_timeout: float = 30.0

    def __init__(self, api_url: str, api_key: str, session: httpx.Client | None = None) -> None:
        self.api_url = api_url.rstrip("/")
        self.session = session if session is not None else httpx.Client()
        self.session.headers["X-API-Key"] = api_key

    # -- build ------------------------------------------------------------------------

    def build(
        self,
        path: Path,
        tags: list[str],
        platform: str | None = None,
        extra_build_args: list[str] | None = None,
        build_args: dict[str, str] | None = None,
        progress: ProgressCallback | None = None,
    ) -> str:
        """Send the context at ``path`` to ``POST /build``; wait for it; return the image.

        The service decides platform and build arguments; those given here are not sent.
        """
        if not tags:
            raise ValueError("build needs at least one tag")
        context = encode_build_context(path)
        build_id = self._submit(context, tags)
        logger.info("Remote build %s of %s submitted", build_id, tags[0])
        if progress is not None:
            progress(f"Remote build {build_id} of {tags[0]} submitted")
        return self._wait_for(build_id, tags[0], progress)

    def _submit(self, context: str, tags: list[str]) -> str:
        while True:
            try:
                response = send_request(
                    self.session,
                    "POST",
                    f"{self.api_url}/build",
                    files={"context": ("context.tar.gz", context)},
                    data={"target_image": tags[0], "tags": tags[1:]},
                    timeout=self.request_timeout,
                )
            except RequestHTTPError as e:
                if e.response.status_code != 429:
                    raise
                logger.warning(
                    "Runtime API is busy (429); building again in %s s", self.rate_limit_pause
                )
                sleep_if_should_continue(self.rate_limit_pause)
                if should_exit():
                    raise AgentRuntimeBuildError("Build interrupted") from e
                continue
            return str(_json_object(response)["build_id"])

    def _wait_for(self, build_id: str, target: str, progress: ProgressCallback | None) -> str:
        deadline = time.monotonic() + self.build_timeout
        last_status = ""
        while True:
            if should_exit():
                raise AgentRuntimeBuildError("Build interrupted")
            if time.monotonic() > deadline:
                minutes = round(self.build_timeout / 60)
                raise AgentRuntimeBuildError(f"Build timed out after {minutes} minutes")
            try:
                response = send_request(
                    self.session,
                    "GET",
                    f"{self.api_url}/build_status",
                    params={"build_id": build_id},
                    timeout=self.request_timeout,
                )
                body = _json_object(response)
            except (httpx.HTTPError, ValueError) as e:
                raise AgentRuntimeBuildError(f"Build status check failed: {e}") from e
            status = str(body.get("status", ""))
            if status == "SUCCESS":
                image = str(body.get("image") or target)
                logger.info("Remote build %s finished: %s", build_id, image)
                return image
            if status in BUILD_FAILED_STATUSES:
                error = body.get("error")
                raise AgentRuntimeBuildError(
                    str(error)
                    if error
                    else f"Build failed with status: {status}. Build ID: {build_id}"
                )
            if progress is not None and status != last_status:
                progress(f"Remote build {build_id}: {status or 'waiting'}")
            last_status = status
            sleep_if_should_continue(self.poll_interval)

    # -- lookups ------------------------------------------------------------------------

    def image_exists(self, image_name: str, pull_from_repo: bool = False) -> bool:
        """Whether the service's registry has ``image_name`` (``pull_from_repo`` is ignored)."""
        try:
            response = send_request(
                self.session,
                "GET",
                f"{self.api_url}/image_exists",
                params={"image": image_name},
                timeout=self.request_timeout,
            )
            body = _json_object(response)
        except (httpx.HTTPError, ValueError) as e:
            raise AgentRuntimeBuildError(f"Could not check whether {image_name} exists: {e}") from e
        if not body.get("exists"):
            logger.debug("Image %s does not exist in the Runtime API registry", image_name)
            return False
        details = body.get("image")
        if isinstance(details, dict):
            logger.debug(
                "Image %s exists (uploaded %s, %s bytes)",
                image_name,
                details.get("upload_time"),
                details.get("image_size_bytes"),
            )
        return True

    def image_id(self, image_name: str) -> str | None:
        """The registry names images only: the name itself when it exists."""
        return image_name if self.image_exists(image_name) else None

    def tag(self, source: str, target: str) -> None:
        raise AgentRuntimeBuildError("The Runtime API cannot tag images; build with every tag")

    def import_rootfs(
        self, tarball: Path, image_name: str, changes: list[str] | None = None
    ) -> str:
        raise AgentRuntimeBuildError("The Runtime API cannot import root filesystems")
