"""A bounded schemathesis run over the server's own OpenAPI document: no 5xx.

A few hundred generated requests (valid and invalid, fixed seed) per mode against a real
server process, single-user and JWT multi-user. The full run (>= 3,000 cases per mode) is
``python -m tests.server.fuzz_openapi``; both share ``fuzz_openapi.run_mode``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.server.fuzz_openapi import run_mode

CASES = 300
SEED = 20251010


@pytest.mark.parametrize("mode", ["single", "jwt"])
def test_no_generated_request_gets_a_5xx(tmp_path: Path, mode: str) -> None:
    report = run_mode(mode, CASES, SEED, tmp_path / mode)
    summary = report.summary()
    assert report.cases >= CASES, summary
    assert report.count_5xx == 0, summary
    assert not report.transport_errors, summary  # a timeout here would be a hang
    # The run reached past the guards: most operations got an answer other than 401/404.
    assert len(report.per_operation) >= 50, summary
    assert sum(n for status, n in report.statuses.items() if status < 300) > CASES // 10, summary
