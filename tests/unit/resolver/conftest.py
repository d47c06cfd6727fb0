from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.resolver.provider_stand_in import StandInProvider, stand_in_provider


@pytest.fixture
def provider(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[StandInProvider]:
    """A stand-in provider API over HTTPS that httpx trusts for this test."""
    certificates = tmp_path / "tls"
    certificates.mkdir()
    with stand_in_provider(certificates) as (api, cert_file):
        monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))
        yield api
