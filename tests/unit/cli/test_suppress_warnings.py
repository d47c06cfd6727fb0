"""openhands.cli.suppress_warnings and the silent deprecation banner (cli.md §1.1, §12.1)."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from openhands.cli.deprecation_warning import display_deprecation_warning
from openhands.cli.suppress_warnings import suppress_cli_warnings

REPO_ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def clean_filters() -> Iterator[None]:
    """Start from no filters and restore the suite's afterwards."""
    with warnings.catch_warnings():
        warnings.resetwarnings()
        warnings.simplefilter("always")
        yield


def _emitted(message: str, category: type[Warning]) -> bool:
    with warnings.catch_warnings(record=True) as caught:
        warnings.warn(message, category, stacklevel=1)
    return bool(caught)


@pytest.mark.parametrize(
    ("message", "category"),
    [
        ("Couldn't find ffmpeg or avconv - defaulting to ffmpeg", RuntimeWarning),
        ("Pydantic serializer warnings:\n  Expected `str` but got `int`", UserWarning),
        ("PydanticSerializationUnexpectedValue(Expected 9 fields but got 5)", UserWarning),
        ("Expected 9 fields but got 5: Expected `Message`", UserWarning),
        ("old_api() is deprecated", DeprecationWarning),
        ("Call to deprecated method get_events. (Use search_events instead)", DeprecationWarning),
        ("will be deprecated", PendingDeprecationWarning),
    ],
)
def test_noise_is_suppressed(clean_filters: None, message: str, category: type[Warning]) -> None:
    assert _emitted(message, category)
    suppress_cli_warnings()
    assert not _emitted(message, category)


@pytest.mark.parametrize(
    ("message", "category"),
    [
        ("Something the user should know", UserWarning),
        ("Couldn't find ffmpeg or avconv", UserWarning),
        ("a runtime problem", RuntimeWarning),
    ],
)
def test_other_warnings_still_show(
    clean_filters: None, message: str, category: type[Warning]
) -> None:
    suppress_cli_warnings()
    assert _emitted(message, category)


def test_calling_twice_adds_no_filters(clean_filters: None) -> None:
    suppress_cli_warnings()
    count = len(warnings.filters)
    suppress_cli_warnings()
    assert len(warnings.filters) == count


def test_importing_installs_the_filters() -> None:
    probe = (
        "import warnings\n"
        "import openhands.cli.suppress_warnings\n"
        "warnings.warn('Pydantic serializer warnings: x', UserWarning)\n"
        "warnings.warn('visible', UserWarning)\n"
    )
    result = subprocess.run(
        [sys.executable, "-W", "default", "-c", probe],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        check=True,
    )
    assert "Pydantic serializer" not in result.stderr
    assert "visible" in result.stderr


def test_deprecation_banner_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    display_deprecation_warning()
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == ""
