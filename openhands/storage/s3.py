"""FileStore on an S3 (or S3-compatible) bucket. Needs the ``s3`` extra (boto3)."""

from __future__ import annotations

import os
from typing import Any

from openhands.storage.files import FileStore
from openhands.storage.object_keys import directory_prefix, immediate_children, object_path


def ensure_url_scheme(secure: bool, url: str | None) -> str | None:
    """Force ``url``'s scheme to ``https`` (secure) or ``http``; ``None``/empty stays ``None``."""
    if not url:
        return None
    bare = url.removeprefix("https://").removeprefix("http://")
    return f"{'https' if secure else 'http'}://{bare}"


class S3FileStore(FileStore):
    """Objects in one bucket; keys are the store paths.

    Configuration comes from the environment: ``AWS_ACCESS_KEY_ID``,
    ``AWS_SECRET_ACCESS_KEY``, ``AWS_S3_ENDPOINT`` (optional), ``AWS_S3_SECURE`` (default
    ``true``) and ``AWS_S3_BUCKET`` when no bucket name is given. Any client error in
    ``read``, ``write`` or ``delete`` surfaces as ``FileNotFoundError``.
    """

    def __init__(self, bucket_name: str | None = None) -> None:
        try:
            import boto3
            from botocore.exceptions import ClientError
        except ImportError as error:
            raise ImportError(
                "S3FileStore needs boto3; install the 's3' extra (pip install 'openhands[s3]')"
            ) from error
        secure = os.getenv("AWS_S3_SECURE", "true").lower() == "true"
        if bucket_name is None:
            bucket_name = os.environ.get("AWS_S3_BUCKET")
            if not bucket_name:
                raise ValueError("S3FileStore needs a bucket name or AWS_S3_BUCKET")
        self.bucket: str = bucket_name
        self._client_error: type[Exception] = ClientError
        self.client: Any = boto3.client(
            "s3",
            aws_access_key_id=os.getenv("AWS_ACCESS_KEY_ID"),
            aws_secret_access_key=os.getenv("AWS_SECRET_ACCESS_KEY"),
            endpoint_url=ensure_url_scheme(secure, os.getenv("AWS_S3_ENDPOINT")),
            use_ssl=secure,
        )

    def write(self, path: str, contents: str | bytes) -> None:
        body = contents.encode("utf-8") if isinstance(contents, str) else contents
        try:
            self.client.put_object(Bucket=self.bucket, Key=path, Body=body)
        except self._client_error as error:
            raise self._not_found("write", path, error) from error

    def read(self, path: str) -> str:
        return self.read_bytes(path).decode("utf-8")

    def read_bytes(self, path: str) -> bytes:
        # Objects hold bytes: no round trip through text, so binary contents come back as is.
        try:
            response = self.client.get_object(Bucket=self.bucket, Key=path)
            with response["Body"] as stream:
                data: bytes = stream.read()
        except self._client_error as error:
            raise self._not_found("read", path, error) from error
        return data

    def list(self, path: str) -> list[str]:
        prefix = directory_prefix(path)
        # One call, no pagination: at most 1000 keys, like the reference store.
        response = self.client.list_objects_v2(Bucket=self.bucket, Prefix=prefix)
        keys = [item["Key"] for item in response.get("Contents") or []]
        return immediate_children(prefix, keys)

    def delete(self, path: str) -> None:
        key = object_path(path)
        try:
            response = self.client.list_objects_v2(Bucket=self.bucket, Prefix=f"{key}/")
            for item in response.get("Contents") or []:
                self.client.delete_object(Bucket=self.bucket, Key=item["Key"])
            self.client.delete_object(Bucket=self.bucket, Key=key)
        except self._client_error as error:
            raise self._not_found("delete", path, error) from error

    def _not_found(self, operation: str, path: str, error: Exception) -> FileNotFoundError:
        code = getattr(error, "response", {}).get("Error", {}).get("Code", "")
        if code == "AccessDenied":
            reason = f"access denied to bucket '{self.bucket}'"
        elif code == "NoSuchBucket":
            reason = f"bucket '{self.bucket}' does not exist"
        elif code in ("NoSuchKey", "404"):
            reason = "no such key"
        else:
            reason = str(error)
        return FileNotFoundError(f"S3 {operation} of '{path}' failed: {reason}")
