"""S3 and GCS stores: the key logic, error mapping and lazy imports, all without a network.

The S3 store is exercised through botocore's Stubber, which checks every request against
the real S3 API model; no request leaves the process.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator

import pytest

from openhands.storage import get_file_store
from openhands.storage.object_keys import directory_prefix, immediate_children, object_path
from openhands.storage.s3 import S3FileStore, ensure_url_scheme

KEYS = [
    "sessions/abc/metadata.json",
    "sessions/abc/events/0.json",
    "sessions/abc/events/1.json",
    "sessions/def/metadata.json",
    "settings.json",
]


def test_directory_prefix_and_object_path() -> None:
    assert directory_prefix("") == ""
    assert directory_prefix("/") == ""
    assert directory_prefix("sessions") == "sessions/"
    assert directory_prefix("sessions/") == "sessions/"
    assert object_path("sessions/abc/") == "sessions/abc"
    assert object_path("/") == ""


def test_immediate_children() -> None:
    assert sorted(immediate_children("", KEYS)) == ["sessions/", "settings.json"]
    assert sorted(immediate_children("sessions/", KEYS)) == ["sessions/abc/", "sessions/def/"]
    assert sorted(immediate_children("sessions/abc/", KEYS)) == [
        "sessions/abc/events/",
        "sessions/abc/metadata.json",
    ]
    assert immediate_children("sessions/abc/", ["sessions/abc/"]) == []  # a dir marker
    assert immediate_children("missing/", KEYS) == []


@pytest.mark.parametrize(
    ("secure", "url", "expected"),
    [
        (True, "minio:9000", "https://minio:9000"),
        (True, "http://minio:9000", "https://minio:9000"),
        (False, "https://minio:9000", "http://minio:9000"),
        (False, "minio:9000", "http://minio:9000"),
        (True, None, None),
        (True, "", None),
    ],
)
def test_ensure_url_scheme(secure: bool, url: str | None, expected: str | None) -> None:
    assert ensure_url_scheme(secure, url) == expected


# --- S3 through the Stubber -----------------------------------------------------------


@pytest.fixture
def s3(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[S3FileStore, object]]:
    from botocore.stub import Stubber

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test-key")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
    monkeypatch.setenv("AWS_S3_ENDPOINT", "127.0.0.1:9")
    monkeypatch.setenv("AWS_S3_SECURE", "false")
    monkeypatch.setenv("AWS_S3_BUCKET", "env-bucket")
    store = S3FileStore()
    with Stubber(store.client) as stubber:
        yield store, stubber
        stubber.assert_no_pending_responses()


def test_s3_configuration_from_env(s3: tuple[S3FileStore, object]) -> None:
    store, _ = s3
    assert store.bucket == "env-bucket"
    assert store.client.meta.endpoint_url == "http://127.0.0.1:9"


def test_s3_write_and_read(s3: tuple[S3FileStore, object]) -> None:
    from botocore.response import StreamingBody

    store, stubber = s3
    stubber.add_response(  # type: ignore[attr-defined]
        "put_object", {}, {"Bucket": "env-bucket", "Key": "a/b.json", "Body": b"\xc3\xbc"}
    )
    stubber.add_response(  # type: ignore[attr-defined]
        "get_object",
        {"Body": StreamingBody(io.BytesIO(b"\xc3\xbc"), 2)},
        {"Bucket": "env-bucket", "Key": "a/b.json"},
    )
    store.write("a/b.json", "ü")
    assert store.read("a/b.json") == "ü"


@pytest.mark.parametrize("code", ["NoSuchKey", "AccessDenied", "NoSuchBucket", "InternalError"])
def test_s3_client_errors_become_file_not_found(s3: tuple[S3FileStore, object], code: str) -> None:
    store, stubber = s3
    stubber.add_client_error("get_object", service_error_code=code)  # type: ignore[attr-defined]
    stubber.add_client_error("put_object", service_error_code=code)  # type: ignore[attr-defined]
    with pytest.raises(FileNotFoundError):
        store.read("x")
    with pytest.raises(FileNotFoundError):
        store.write("x", "v")


def test_s3_list(s3: tuple[S3FileStore, object]) -> None:
    store, stubber = s3
    under = [key for key in KEYS if key.startswith("sessions/")]
    stubber.add_response(  # type: ignore[attr-defined]
        "list_objects_v2",
        {"Contents": [{"Key": key} for key in under]},
        {"Bucket": "env-bucket", "Prefix": "sessions/"},
    )
    stubber.add_response(  # type: ignore[attr-defined]
        "list_objects_v2", {}, {"Bucket": "env-bucket", "Prefix": "missing/"}
    )
    assert sorted(store.list("sessions")) == ["sessions/abc/", "sessions/def/"]
    assert store.list("missing") == []


def test_s3_delete_removes_children_then_the_key(s3: tuple[S3FileStore, object]) -> None:
    store, stubber = s3
    stubber.add_response(  # type: ignore[attr-defined]
        "list_objects_v2",
        {
            "Contents": [
                {"Key": "sessions/abc/metadata.json"},
                {"Key": "sessions/abc/events/0.json"},
            ]
        },
        {"Bucket": "env-bucket", "Prefix": "sessions/abc/"},
    )
    for key in ("sessions/abc/metadata.json", "sessions/abc/events/0.json", "sessions/abc"):
        stubber.add_response(  # type: ignore[attr-defined]
            "delete_object", {}, {"Bucket": "env-bucket", "Key": key}
        )
    store.delete("sessions/abc/")


def test_s3_delete_error_becomes_file_not_found(s3: tuple[S3FileStore, object]) -> None:
    store, stubber = s3
    stubber.add_client_error("list_objects_v2", service_error_code="NoSuchBucket")  # type: ignore[attr-defined]
    with pytest.raises(FileNotFoundError):
        store.delete("x")


def test_get_file_store_s3_uses_the_path_as_bucket(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "k")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s")
    store = get_file_store("s3", "my-bucket")
    assert isinstance(store, S3FileStore)
    assert store.bucket == "my-bucket"


def test_s3_without_bucket_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_S3_BUCKET", raising=False)
    with pytest.raises(ValueError, match="AWS_S3_BUCKET"):
        S3FileStore()


# --- missing optional libraries -------------------------------------------------------


def test_storage_package_imports_without_cloud_libraries() -> None:
    import subprocess

    code = (
        "import sys\n"
        "for name in ('boto3', 'botocore', 'google', 'google.cloud'):\n"
        "    sys.modules[name] = None\n"
        "import openhands.storage, openhands.storage.s3, openhands.storage.google_cloud\n"
        "from openhands.storage import get_file_store\n"
        "get_file_store('memory')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_s3_without_boto3_explains_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "boto3", None)
    with pytest.raises(ImportError, match=r"openhands\[s3\]"):
        S3FileStore("bucket")


def test_gcs_without_library_explains_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from openhands.storage.google_cloud import GoogleCloudFileStore

    monkeypatch.setitem(sys.modules, "google.cloud", None)
    with pytest.raises(ImportError, match=r"openhands\[gcs\]"):
        GoogleCloudFileStore("bucket")
    with pytest.raises(ImportError, match=r"openhands\[gcs\]"):
        get_file_store("google_cloud", "bucket")


def _fake_gcs_library(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A stand-in for google-cloud-storage (an optional extra) that records how the store
    builds its client: the real one would find credentials on this machine or fail."""
    import types

    made: list[str] = []

    class NotFound(Exception):
        pass

    class Client:
        def __init__(self, *args: object, **kwargs: object) -> None:
            made.append("default-chain")
            assert not args and not kwargs  # project and credentials come from the chain

        @classmethod
        def create_anonymous_client(cls) -> Client:
            made.append("anonymous")
            return cls.__new__(cls)

        def bucket(self, name: str) -> str:
            return f"bucket:{name}"

    google = types.ModuleType("google")
    cloud = types.ModuleType("google.cloud")
    storage = types.ModuleType("google.cloud.storage")
    api_core = types.ModuleType("google.api_core")
    exceptions = types.ModuleType("google.api_core.exceptions")
    storage.Client = Client  # type: ignore[attr-defined]
    exceptions.NotFound = NotFound  # type: ignore[attr-defined]
    cloud.storage = storage  # type: ignore[attr-defined]
    google.cloud = cloud  # type: ignore[attr-defined]
    api_core.exceptions = exceptions  # type: ignore[attr-defined]
    google.api_core = api_core  # type: ignore[attr-defined]
    for name, module in (
        ("google", google),
        ("google.cloud", cloud),
        ("google.cloud.storage", storage),
        ("google.api_core", api_core),
        ("google.api_core.exceptions", exceptions),
    ):
        monkeypatch.setitem(sys.modules, name, module)
    return made


@pytest.mark.parametrize("credentials_file", [None, "/etc/gcs-key.json"])
def test_gcs_uses_the_default_credential_chain(
    monkeypatch: pytest.MonkeyPatch, credentials_file: str | None
) -> None:
    from openhands.storage.google_cloud import GoogleCloudFileStore

    made = _fake_gcs_library(monkeypatch)
    if credentials_file is None:  # e.g. gcloud ADC or the metadata server on GKE
        monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    else:
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", credentials_file)
    monkeypatch.setenv("GOOGLE_CLOUD_BUCKET_NAME", "env-bucket")
    store = GoogleCloudFileStore()
    assert made == ["default-chain"]
    assert store.bucket == "bucket:env-bucket"
