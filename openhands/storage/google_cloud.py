"""FileStore on a Google Cloud Storage bucket. Needs the ``gcs`` extra."""

from __future__ import annotations

import os
from typing import Any

from openhands.storage.files import FileStore
from openhands.storage.object_keys import directory_prefix, immediate_children, object_path


class GoogleCloudFileStore(FileStore):
    """Blobs in one bucket; blob names are the store paths.

    The bucket defaults to env ``GOOGLE_CLOUD_BUCKET_NAME``. Credentials come from Google's
    default chain (``storage.Client()``), never an anonymous client. With
    ``STORAGE_EMULATOR_HOST`` set, google-cloud-storage talks to that emulator instead (the
    tests run against gcp-storage-emulator that way).

    ``read`` decodes through the text mode of ``Blob.open``, which reads ``\r\n`` as ``\n``;
    ``read_bytes`` returns the stored bytes unchanged.
    """

    def __init__(self, bucket_name: str | None = None) -> None:
        try:
            from google.api_core.exceptions import NotFound
            from google.cloud import storage
        except ImportError as error:
            raise ImportError(
                "GoogleCloudFileStore needs google-cloud-storage; install the 'gcs' extra "
                "(pip install 'openhands[gcs]')"
            ) from error
        if bucket_name is None:
            bucket_name = os.environ.get("GOOGLE_CLOUD_BUCKET_NAME")
            if not bucket_name:
                raise ValueError(
                    "GoogleCloudFileStore needs a bucket name or GOOGLE_CLOUD_BUCKET_NAME"
                )
        self._not_found: type[Exception] = NotFound
        # Google's default credential chain: GOOGLE_APPLICATION_CREDENTIALS, gcloud's
        # application-default login, or the metadata server on GCE/GKE/Cloud Run.
        self.storage_client: Any = storage.Client()
        self.bucket: Any = self.storage_client.bucket(bucket_name)

    # Reads and writes go through ``Blob.open`` (text mode for text, binary for bytes), the
    # same client calls as the reference, so fakes written against it work here too.

    def write(self, path: str, contents: str | bytes) -> None:
        blob = self.bucket.blob(path)
        with blob.open("wb" if isinstance(contents, bytes) else "w") as handle:
            handle.write(contents)

    def read(self, path: str) -> str:
        try:
            with self.bucket.blob(path).open("r") as handle:
                return str(handle.read())
        except self._not_found as error:
            raise FileNotFoundError(path) from error

    def read_bytes(self, path: str) -> bytes:
        # Blobs hold bytes: no round trip through text, so binary contents come back as is.
        try:
            with self.bucket.blob(path).open("rb") as handle:
                return bytes(handle.read())
        except self._not_found as error:
            raise FileNotFoundError(path) from error

    def list(self, path: str) -> list[str]:
        prefix = directory_prefix(path)
        names = (blob.name for blob in self.bucket.list_blobs(prefix=prefix))
        return immediate_children(prefix, names)

    def delete(self, path: str) -> None:
        name = object_path(path)
        for blob in self.bucket.list_blobs(prefix=f"{name}/"):
            blob.delete()
        try:
            self.bucket.blob(name).delete()
        except self._not_found:
            pass
