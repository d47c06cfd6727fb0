"""Result records, their file, the command-line viewer and the text helpers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from openhands.resolver.interfaces.issue import Issue
from openhands.resolver.io_utils import load_all_resolver_outputs, load_single_resolver_output
from openhands.resolver.resolver_output import ResolverOutput
from openhands.resolver.utils import extract_image_urls, extract_issue_references, get_unique_uid


def record(number: int) -> ResolverOutput:
    return ResolverOutput(
        issue=Issue(owner="o", repo="r", number=number, title="t", body="b", labels=["bug"]),
        issue_type="issue",
        instruction="do it",
        base_commit="abc",
        git_patch="diff --git a/x b/x\r\n",
        history=[],
        metrics=None,
        success=True,
        comment_success=None,
        result_explanation="done",
        error=None,
    )


def test_records_round_trip_through_the_jsonl_file(tmp_path: Path) -> None:
    path = tmp_path / "output.jsonl"
    path.write_text(record(5).model_dump_json() + "\n" + record(1).model_dump_json() + "\n")

    assert '"success":true' in path.read_text()
    assert "labels" not in path.read_text()
    assert [r.issue.number for r in load_all_resolver_outputs(str(path))] == [5, 1]
    assert load_single_resolver_output(str(path), 1).git_patch == "diff --git a/x b/x\r\n"
    with pytest.raises(ValueError, match=f"Issue number 999 not found in {path}"):
        load_single_resolver_output(str(path), 999)


def test_every_record_field_is_required() -> None:
    fields = record(1).model_dump()
    del fields["error"]
    with pytest.raises(ValidationError):
        ResolverOutput.model_validate(fields)


def test_viewer_prints_the_record(tmp_path: Path) -> None:
    (tmp_path / "output.jsonl").write_text(record(3).model_dump_json() + "\n")
    shown = subprocess.run(
        [
            sys.executable,
            "-m",
            "openhands.resolver.visualize_resolver_output",
            "--issue-number",
            "3",
            "--output-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert ResolverOutput.model_validate_json(shown.stdout) == record(3)
    assert shown.stdout.startswith('{\n    "issue"')

    missing = subprocess.run(
        [
            sys.executable,
            "-m",
            "openhands.resolver.visualize_resolver_output",
            "--issue-number",
            "4",
            "--output-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert missing.returncode == 1 and "Issue number 4 not found" in missing.stderr
    assert "Traceback" not in missing.stderr


@pytest.mark.parametrize(
    ("body", "numbers"),
    [
        ("Fixes #123, #456", [123, 456]),
        ("(#7) and [#8] then #7.", [7, 8, 7]),
        ("`#1` ```\n#2\n``` https://x.example/a#3 x#4 ##5", []),
    ],
)
def test_issue_references(body: str, numbers: list[int]) -> None:
    assert extract_issue_references(body) == numbers


def test_image_urls_are_markdown_images_only() -> None:
    body = "![a](https://i.example/a.png) [link](https://x.example) ![b](http://i.example/b.gif)"
    assert extract_image_urls(body) == ["https://i.example/a.png", "http://i.example/b.gif"]


def test_unique_uid_is_free_in_passwd() -> None:
    taken = {
        int(line.split(":")[2])
        for line in Path("/etc/passwd").read_text().splitlines()
        if line.count(":") >= 2
    }
    uid = get_unique_uid(0)
    assert uid not in taken
    assert all(candidate in taken for candidate in range(uid))
