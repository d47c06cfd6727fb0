"""Under ``CI=true`` a skipped test fails the run (imported by ``tests/conftest.py``).

A test skips when a tool or service it needs is missing (tmux, a Docker engine, the sandbox
image, Redis...). On a developer's machine that is a convenience; in CI it hid about 60 tests
that never ran because ``make test`` did not install tmux. So in CI every skip is turned into
a failure that names the reason, unless the test is marked as legitimately skippable on
some platforms::

    @pytest.mark.allow_skip_in_ci("a second Docker engine needs root")

The rule is "all skips unless marked", not "skips whose reason looks like a missing tool":
a reason text cannot be matched reliably, a marker can be grepped. ``xfail`` is not a skip
and is left alone. Skips at collection time (``pytest.skip(allow_module_level=True)``) fail
the collection the same way.
"""

from __future__ import annotations

import os
from collections.abc import Generator

import pytest
from _pytest.reports import CollectReport, TestReport

MARKER = "allow_skip_in_ci"
_TRUE = frozenset({"true", "1", "yes"})


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in _TRUE


def _skip_reason(longrepr: object) -> str:
    # A skip's longrepr is (path, line, "Skipped: <reason>").
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def failure_text(reason: str) -> str:
    return (
        f"skipped under CI=true, which fails the run: {reason}\n"
        "Install what the test needs (make test does), or mark the test "
        f"@pytest.mark.{MARKER}(reason) if skipping is legitimate on some platforms."
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(reason): the test may skip under CI=true (e.g. it needs root); any other "
        "skip fails a CI run",
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, None]:
    outcome = yield
    report: TestReport = outcome.get_result()  # type: ignore[attr-defined]
    if not (report.skipped and in_ci()) or hasattr(report, "wasxfail"):
        return
    if item.get_closest_marker(MARKER) is not None:
        return
    report.outcome = "failed"
    report.longrepr = failure_text(_skip_reason(report.longrepr))


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, CollectReport, None]:
    outcome = yield
    report: CollectReport = outcome.get_result()  # type: ignore[attr-defined]
    if report.skipped and in_ci():
        report.outcome = "failed"
        report.longrepr = failure_text(_skip_reason(report.longrepr))
