"""S3FileStore and GoogleCloudFileStore over HTTP against real emulators.

moto (server mode) speaks S3's REST API and gcp-storage-emulator Google Cloud Storage's JSON
and upload APIs; both run as child processes on loopback ports. The stores find them the
way a deployment configures them: ``AWS_S3_ENDPOINT``/``AWS_S3_SECURE`` and the AWS keys for
S3, ``STORAGE_EMULATOR_HOST`` for GCS. Every test gets a bucket of its own; what a store
wrote is checked with the service's own client, not only through the store.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from openhands.storage import get_file_store
from openhands.storage.files import FileStore
from openhands.storage.google_cloud import GoogleCloudFileStore
from tests.support.object_stores import GcsEmulator, MotoS3Server, missing_emulator

BINARY = bytes(range(256))  # every byte value, most of it not UTF-8


@dataclass
class Backend:
    store: FileStore
    raw_object: Callable[[str], bytes | None]  # the object's bytes as the service holds them
    bucket: str


@pytest.fixture(scope="module")
def moto_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MotoS3Server]:
    missing_emulator("moto")
    missing_emulator("flask")
    with MotoS3Server(tmp_path_factory.mktemp("moto")) as server:
        yield server  # type: ignore[misc]


@pytest.fixture(scope="module")
def gcs_emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GcsEmulator]:
    missing_emulator("gcp_storage_emulator")
    missing_emulator("google.cloud.storage")
    with GcsEmulator(tmp_path_factory.mktemp("gcs")) as emulator:
        yield emulator  # type: ignore[misc]


def _bucket_name() -> str:
    return f"oh-test-{uuid.uuid4().hex[:12]}"


def _s3_backend(server: MotoS3Server, monkeypatch: pytest.MonkeyPatch) -> Backend:
    import boto3
    from botocore.exceptions import ClientError

    bucket = _bucket_name()
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "emulator-key")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "emulator-secret")
    # host:port without a scheme, as in a MinIO setup: AWS_S3_SECURE picks http.
    monkeypatch.setenv("AWS_S3_ENDPOINT", server.endpoint.removeprefix("http://"))
    monkeypatch.setenv("AWS_S3_SECURE", "false")
    monkeypatch.setenv("AWS_S3_BUCKET", bucket)
    admin = boto3.client(
        "s3",
        endpoint_url=server.endpoint,
        aws_access_key_id="emulator-key",
        aws_secret_access_key="emulator-secret",
        region_name="us-east-1",
    )
    admin.create_bucket(Bucket=bucket)

    def raw_object(key: str) -> bytes | None:
        try:
            body: bytes = admin.get_object(Bucket=bucket, Key=key)["Body"].read()
        except ClientError:
            return None
        return body

    # Through the factory, as the server builds it (file_store = "s3", the path is the bucket).
    return Backend(get_file_store("s3", bucket), raw_object, bucket)


def _gcs_backend(emulator: GcsEmulator, monkeypatch: pytest.MonkeyPatch) -> Backend:
    from google.cloud import storage

    bucket = _bucket_name()
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", emulator.endpoint)
    monkeypatch.setenv("GOOGLE_CLOUD_BUCKET_NAME", bucket)
    admin = storage.Client()
    admin.create_bucket(bucket)

    def raw_object(name: str) -> bytes | None:
        blob = admin.bucket(bucket).get_blob(name)
        return None if blob is None else bytes(blob.download_as_bytes())

    return Backend(get_file_store("google_cloud", bucket), raw_object, bucket)


@pytest.fixture(params=["s3", "gcs"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Backend:
    if request.param == "s3":
        return _s3_backend(request.getfixturevalue("moto_server"), monkeypatch)
    return _gcs_backend(request.getfixturevalue("gcs_emulator"), monkeypatch)


def test_text_is_stored_as_utf8_and_read_back(backend: Backend) -> None:
    backend.store.write("notes/a.txt", "grüße ✓\r\nzwei\n")
    assert backend.raw_object("notes/a.txt") == "grüße ✓\r\nzwei\n".encode()
    assert backend.store.read_bytes("notes/a.txt") == "grüße ✓\r\nzwei\n".encode()
    text = backend.store.read("notes/a.txt")
    if isinstance(backend.store, GoogleCloudFileStore):
        # Documented difference: the GCS store reads text through Blob.open("r"), the
        # reference's call, whose text mode turns "\r\n" into "\n". The stored bytes and
        # read_bytes keep them.
        assert text == "grüße ✓\nzwei\n"
    else:
        assert text == "grüße ✓\r\nzwei\n"


def test_binary_contents_round_trip_unchanged(backend: Backend) -> None:
    backend.store.write("blobs/all-bytes.bin", BINARY)
    assert backend.raw_object("blobs/all-bytes.bin") == BINARY
    assert backend.store.read_bytes("blobs/all-bytes.bin") == BINARY


def test_write_overwrites(backend: Backend) -> None:
    backend.store.write("x.json", "a much longer first version")
    backend.store.write("x.json", b"short")
    assert backend.store.read("x.json") == "short"
    assert backend.raw_object("x.json") == b"short"


def test_missing_keys(backend: Backend) -> None:
    with pytest.raises(FileNotFoundError):
        backend.store.read("sessions/none/metadata.json")
    with pytest.raises(FileNotFoundError):
        backend.store.read_bytes("sessions/none/metadata.json")
    assert backend.store.list("sessions/none") == []
    backend.store.delete("sessions/none/metadata.json")  # not an error
    backend.store.delete("sessions/none/")


def test_nested_listing(backend: Backend) -> None:
    store = backend.store
    for key in (
        "sessions/abc/metadata.json",
        "sessions/abc/events/0.json",
        "sessions/abc/events/1.json",
        "sessions/abcd/metadata.json",  # shares a string prefix with "sessions/abc"
        "sessions/def/events/0.json",
        "settings.json",
    ):
        store.write(key, "{}")
    assert sorted(store.list("")) == ["sessions/", "settings.json"]
    assert sorted(store.list("sessions")) == ["sessions/abc/", "sessions/abcd/", "sessions/def/"]
    assert sorted(store.list("sessions/abc/")) == [
        "sessions/abc/events/",
        "sessions/abc/metadata.json",
    ]
    assert sorted(store.list("sessions/abc/events")) == [
        "sessions/abc/events/0.json",
        "sessions/abc/events/1.json",
    ]
    assert sorted(store.list_names("sessions/abc")) == ["events", "metadata.json"]
    assert store.sequence_end("sessions/abc/events/", ".json", 0, 64) == 2


def test_delete_file_and_directory(backend: Backend) -> None:
    store = backend.store
    for key in (
        "sessions/abc/metadata.json",
        "sessions/abc/events/0.json",
        "sessions/abcd/metadata.json",
        "sessions/keep/metadata.json",
    ):
        store.write(key, "{}")
    store.delete("sessions/keep/metadata.json")
    assert backend.raw_object("sessions/keep/metadata.json") is None
    with pytest.raises(FileNotFoundError):
        store.read("sessions/keep/metadata.json")

    store.delete("sessions/abc")  # recursive, and only that directory
    assert backend.raw_object("sessions/abc/metadata.json") is None
    assert backend.raw_object("sessions/abc/events/0.json") is None
    assert store.read("sessions/abcd/metadata.json") == "{}"
    assert store.list("sessions/") == ["sessions/abcd/"]


def test_a_missing_bucket_is_a_clear_error(backend: Backend) -> None:
    # Another store on a bucket nobody created: reads fail as missing files, not hang.
    other = type(backend.store)(f"{backend.bucket}-absent")  # type: ignore[call-arg]
    with pytest.raises(FileNotFoundError):
        other.read("settings.json")


def test_a_missing_emulator_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="not installed"):
        missing_emulator("openhands_no_such_emulator")
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="not installed"):
        missing_emulator("openhands_no_such_emulator")
