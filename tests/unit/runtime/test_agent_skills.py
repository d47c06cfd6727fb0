"""AgentSkills functions (runtime.md §7), called directly the way the kernel calls them."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from openhands.runtime.plugins import AgentSkillsRequirement
from openhands.runtime.plugins.agent_skills import agentskills
from openhands.runtime.plugins.agent_skills.agentskills import (
    DOCUMENTATION,
    file_editor,
    find_file,
    goto_line,
    open_file,
    parse_latex,
    parse_pdf,
    scroll_down,
    scroll_up,
    search_dir,
    search_file,
)
from openhands.runtime.plugins.agent_skills.file_ops import file_ops


@pytest.fixture(autouse=True)
def fresh_viewer(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(file_ops, "CURRENT_FILE", None)
    monkeypatch.setattr(file_ops, "CURRENT_LINE", 1)
    yield


@pytest.fixture
def numbered(tmp_path: Path) -> Path:
    path = tmp_path / "numbers.txt"
    path.write_text("".join(f"line {i}\n" for i in range(1, 251)))
    return path


def printed(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return capsys.readouterr().out.splitlines()


def test_open_file_shows_a_window(numbered: Path, capsys: pytest.CaptureFixture[str]) -> None:
    open_file(str(numbered))
    out = printed(capsys)
    assert out[0] == f"[File: {numbered} (250 lines total)]"
    assert out[1] == "(this is the beginning of the file)"
    assert out[2] == "1|line 1"
    assert out[101] == "100|line 100"
    assert out[102] == "(150 more lines below)"


def test_goto_and_scroll_move_the_window(
    numbered: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """context_lines sizes open_file's window only; goto_line and scrolling show 100 lines,
    goto_line centred on its line, scrolling starting where it lands (0.59's windows)."""
    open_file(str(numbered), line_number=1, context_lines=10)
    assert printed(capsys)[-1] == "[Use `scroll_down` to view the next 100 lines of the file!]"
    goto_line(100)
    out = printed(capsys)
    assert out[0] == f"[File: {numbered} (250 lines total)]"
    assert out[1] == "(49 more lines above)"
    assert out[2] == "50|line 50"
    assert out[-1] == "(100 more lines below)"
    scroll_down()
    out = printed(capsys)
    assert out[1:3] == ["(150 more lines above)", "151|line 151"]
    assert out[-1] == "(this is the end of the file)"
    scroll_up()
    assert printed(capsys)[2] == "100|line 100"
    scroll_up()
    assert printed(capsys)[1:3] == ["(this is the beginning of the file)", "1|line 1"]


def test_window_at_the_end(numbered: Path, capsys: pytest.CaptureFixture[str]) -> None:
    open_file(str(numbered), line_number=250, context_lines=10)
    out = printed(capsys)
    assert out[-2] == "250|line 250"
    assert out[-1] == "(this is the end of the file)"
    assert out[2] == "241|line 241"


def test_viewer_errors(numbered: Path, capsys: pytest.CaptureFixture[str]) -> None:
    goto_line(3)
    assert printed(capsys) == ["ERROR: No file open. Use the open_file function first."]
    open_file(str(numbered.parent / "missing.txt"))
    assert printed(capsys)[0].startswith("ERROR: File ")
    open_file(str(numbered), line_number=999)
    assert printed(capsys) == ["ERROR: Line number must be between 1 and 250"]
    goto_line(0)
    assert printed(capsys) == ["ERROR: Line number must be between 1 and 250."]


def test_search_dir_and_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.py").write_text("needle one\nhay\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.py").write_text("hay\nneedle two\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "c.py").write_text("needle hidden\n")
    (tmp_path / "blob.bin").write_bytes(b"\xff\xfe needle \x00")
    search_dir("needle", str(tmp_path))
    assert printed(capsys) == [
        f'[Found 2 matches for "needle" in {tmp_path}]',
        f"{tmp_path}/a.py (Line 1): needle one",
        f"{tmp_path}/sub/b.py (Line 2): needle two",
        f'[End of matches for "needle" in {tmp_path}]',
    ]
    search_file("needle", str(tmp_path / "sub" / "b.py"))
    assert printed(capsys)[1] == "Line 2: needle two"
    search_dir("absent", str(tmp_path))
    assert printed(capsys) == [f'No matches found for "absent" in {tmp_path}']


def test_search_dir_with_too_many_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for i in range(101):
        (tmp_path / f"f{i}.txt").write_text("common\n")
    search_dir("common", str(tmp_path))
    assert printed(capsys) == [
        f'More than 101 files matched for "common" in {tmp_path}. Please narrow your search.'
    ]


def test_find_file_accepts_patterns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "target.py").write_text("")
    (tmp_path / "other.txt").write_text("")
    find_file("*.py", str(tmp_path))
    assert printed(capsys) == [
        f'[Found 1 matches for "*.py" in {tmp_path}]',
        f"{tmp_path}/x/target.py",
        f'[End of matches for "*.py" in {tmp_path}]',
    ]


def _unwrap(output: str) -> dict[str, object]:
    match = re.fullmatch(r"<(oh_aci_output_[0-9a-f]{32})>\n(.*)\n</\1>", output, re.S)
    assert match, output
    return dict(json.loads(match.group(2)))


def test_file_editor_wraps_results_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "edited.txt"
    created = _unwrap(file_editor(command="create", path=str(path), file_text="a\nb\n"))
    assert created["output"] == f"File created successfully at: {path}"
    assert created["prev_exist"] is False
    assert created["new_content"] == "a\nb\n"
    replaced = _unwrap(file_editor(command="str_replace", path=str(path), old_str="b", new_str="c"))
    assert replaced["prev_exist"] is True
    assert replaced["old_content"] == "a\nb\n"
    assert replaced["new_content"] == "a\nc\n"
    failed = _unwrap(file_editor(command="str_replace", path=str(path), old_str="zzz", new_str="y"))
    assert failed["output"] == ""
    assert "did not appear verbatim" in str(failed["error"])
    assert str(failed["formatted_output_and_error"]).startswith("ERROR:\n")
    # Shown as plain text when it is a cell's last value.
    assert repr(file_editor(command="view", path=str(path))).startswith("<oh_aci_output_")


def test_document_parsers_report_missing_converters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "paper.tex"
    doc.write_text(r"\section{Intro} Hello")
    parse_latex(str(doc))
    out = capsys.readouterr().out
    try:
        import pylatexenc  # noqa: F401
    except ImportError:
        assert out.startswith("ERROR: LaTeX parsing is not available")
    else:
        assert "Hello" in out
    parse_pdf(str(tmp_path / "missing.pdf"))
    assert capsys.readouterr().out.startswith("ERROR: File ")


def test_documentation_lists_every_skill() -> None:
    for name in agentskills.__all__:
        assert f"\n{name}(" in f"\n{DOCUMENTATION}"
    assert AgentSkillsRequirement().documentation == DOCUMENTATION
    assert "open_file(path: str, line_number: int | None = 1" in DOCUMENTATION
