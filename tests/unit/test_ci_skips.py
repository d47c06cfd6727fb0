"""tests/support/ci_skips.py: under CI=true a skip fails the run unless the test is marked.

Each case runs a small suite in a child pytest with the same hooks our conftest installs.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ci_skips

REPO_ROOT = Path(__file__).resolve().parents[2]

SUITE = """
import shutil
import pytest

def test_passes():
    assert True

def test_skips_for_a_missing_tool():
    pytest.skip("tmux is not installed")

@pytest.mark.skipif(True, reason="no Docker engine")
def test_skipif_marker():
    pass

@pytest.fixture
def service():
    pytest.skip("redis-server is missing")

def test_skips_in_a_fixture(service):
    pass

@pytest.mark.allow_skip_in_ci("needs root")
def test_marked_as_allowed():
    pytest.skip("needs root")

@pytest.mark.xfail(reason="known bug", strict=True)
def test_expected_failure():
    assert False
"""


def run_suite(tmp_path: Path, ci: str | None, suite: str = SUITE) -> tuple[dict[str, str], str]:
    """Outcome per test name (from ``-v``) and the whole output."""
    (tmp_path / "conftest.py").write_text(
        "from tests.support.ci_skips import (  # noqa: F401\n"
        "    pytest_configure, pytest_make_collect_report, pytest_runtest_makereport)\n"
    )
    (tmp_path / "test_suite.py").write_text(suite)
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
    env["PYTHONPATH"] = str(REPO_ROOT)
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # a bare pytest starts in a fraction of the time
    if ci is not None:
        env["CI"] = ci
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    outcomes: dict[str, str] = {}
    line = re.compile(r"^test_suite\.py::(\w+) (PASSED|FAILED|SKIPPED|XFAIL|ERROR)\b", re.M)
    for match in line.finditer(result.stdout):
        outcomes.setdefault(match.group(1), match.group(2))
    return outcomes, result.stdout


def test_without_ci_skips_stay_skips(tmp_path: Path) -> None:
    outcomes, output = run_suite(tmp_path, ci=None)
    assert outcomes == {
        "test_passes": "PASSED",
        "test_skips_for_a_missing_tool": "SKIPPED",
        "test_skipif_marker": "SKIPPED",
        "test_skips_in_a_fixture": "SKIPPED",
        "test_marked_as_allowed": "SKIPPED",
        "test_expected_failure": "XFAIL",
    }, output


def test_under_ci_unmarked_skips_fail(tmp_path: Path) -> None:
    outcomes, output = run_suite(tmp_path, ci="true")
    assert outcomes == {
        "test_passes": "PASSED",
        "test_skips_for_a_missing_tool": "FAILED",
        "test_skipif_marker": "ERROR",  # a skipif is decided in setup: a setup error
        "test_skips_in_a_fixture": "ERROR",
        "test_marked_as_allowed": "SKIPPED",
        "test_expected_failure": "XFAIL",
    }, output
    # The failure names the reason and what to do.
    assert "skipped under CI=true, which fails the run: tmux is not installed" in output
    assert "skipped under CI=true, which fails the run: no Docker engine" in output
    assert "skipped under CI=true, which fails the run: redis-server is missing" in output
    assert "@pytest.mark.allow_skip_in_ci(reason)" in output


@pytest.mark.parametrize(
    ("value", "expected"),
    [("true", True), ("1", True), ("TRUE", True), ("yes", True), ("false", False), ("", False)],
)
def test_what_counts_as_ci(monkeypatch: pytest.MonkeyPatch, value: str, expected: bool) -> None:
    monkeypatch.setenv("CI", value)
    assert ci_skips.in_ci() is expected


def test_under_ci_a_module_level_skip_fails_the_collection(tmp_path: Path) -> None:
    suite = 'import pytest\npytest.skip("chromium is missing", allow_module_level=True)\n'
    _, output = run_suite(tmp_path, ci="true", suite=suite)
    assert "ERROR test_suite.py" in output, output
    assert "skipped under CI=true, which fails the run: chromium is missing" in output
