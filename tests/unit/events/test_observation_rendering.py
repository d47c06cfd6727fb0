"""Per-type behaviour of command and edit observations (events.md §6): truncation bounds,
PS1 metadata parsing, the text shown to the agent, and the edit diff rendering."""

from __future__ import annotations

import json

from openhands.events.event import FileEditSource
from openhands.events.observation import (
    CmdOutputMetadata,
    CmdOutputObservation,
    FileEditObservation,
    IPythonRunCellObservation,
)
from openhands.events.serialization import event_from_dict, event_to_dict

MARKER = "\n[... Observation truncated due to length ...]\n"


# --- CmdOutputObservation ------------------------------------------------------------


def test_truncation_starts_above_30000_characters() -> None:
    exact = "x" * 30_000
    assert CmdOutputObservation(exact, command="c").content == exact
    over = "h" * 15_000 + "M" + "t" * 15_000
    cut = CmdOutputObservation(over, command="c").content
    assert cut == "h" * 15_000 + MARKER + "t" * 15_000


def test_truncation_applies_when_loading_too() -> None:
    long = "a" * 15_000 + "-" * 5_000 + "z" * 15_000
    data = {"observation": "run", "content": long, "extras": {"command": "cat big"}}
    loaded = event_from_dict(data)
    assert loaded.content == "a" * 15_000 + MARKER + "z" * 15_000
    hidden = event_from_dict({**data, "extras": {"command": "cat big", "hidden": True}})
    assert hidden.content == long


def test_success_and_error_follow_the_exit_code() -> None:
    cases = {0: (True, False), 1: (False, True), -1: (False, True), 130: (False, True)}
    for code, (success, error) in cases.items():
        obs = CmdOutputObservation("", command="c", metadata=CmdOutputMetadata(exit_code=code))
        assert (obs.success, obs.error) == (success, error), code
        assert event_to_dict(obs)["success"] is success
    cell = IPythonRunCellObservation("Traceback ...", code="1/0")
    assert (cell.success, cell.error) == (True, False)


def test_agent_text_with_prefix_suffix_and_optional_lines() -> None:
    meta = CmdOutputMetadata(prefix="[before]\n", suffix="\n[after]")
    obs = CmdOutputObservation("body", command="c", metadata=meta)
    # No working dir, no interpreter, exit code -1: no extra lines at all.
    assert obs.to_agent_observation() == "[before]\nbody\n[after]"
    obs.metadata.exit_code = 2
    obs.metadata.working_dir = "/w"
    assert obs.to_agent_observation() == (
        "[before]\nbody\n[after]\n[Current working directory: /w]\n[Command finished with exit code 2]"
    )


def _ps1_block(payload: dict | str) -> str:
    body = payload if isinstance(payload, str) else json.dumps(payload, indent=2)
    return f"\n###PS1JSON###\n{body}\n###PS1END###\n"


def test_ps1_prompt_carries_the_markers_and_every_key() -> None:
    prompt = CmdOutputMetadata.to_ps1_prompt()
    assert prompt.startswith("\n###PS1JSON###\n")
    assert prompt.endswith("\n###PS1END###\n")
    for key in ("pid", "exit_code", "username", "hostname", "working_dir", "py_interpreter_path"):
        assert f'\\"{key}\\"' in prompt  # quotes escaped for bash


def test_ps1_blocks_are_parsed_and_invalid_ones_skipped() -> None:
    output = (
        "some output"
        + _ps1_block({"pid": "", "exit_code": "0", "username": "root", "hostname": "box"})
        + "more output"
        + _ps1_block("{not json")
        + _ps1_block(
            {
                "pid": "4242",
                "exit_code": "1.0",
                "username": "dev",
                "hostname": "",
                "working_dir": "/workspace",
                "py_interpreter_path": "/usr/bin/python3",
            }
        )
    )
    matches = CmdOutputMetadata.matches_ps1_metadata(output)
    assert len(matches) == 2
    first = CmdOutputMetadata.from_ps1_match(matches[0])
    assert (first.pid, first.exit_code, first.username, first.hostname) == (-1, 0, "root", "box")
    assert first.working_dir is None and first.py_interpreter_path is None
    second = CmdOutputMetadata.from_ps1_match(matches[1])
    assert second.model_dump() == {
        "exit_code": 1,
        "pid": 4242,
        "username": "dev",
        "hostname": None,  # empty values are treated as absent
        "working_dir": "/workspace",
        "py_interpreter_path": "/usr/bin/python3",
        "prefix": "",
        "suffix": "",
    }


def test_ps1_unparseable_numbers_become_minus_one() -> None:
    [match] = CmdOutputMetadata.matches_ps1_metadata(_ps1_block({"pid": "abc", "exit_code": None}))
    meta = CmdOutputMetadata.from_ps1_match(match)
    assert (meta.pid, meta.exit_code) == (-1, -1)


# --- FileEditObservation -------------------------------------------------------------

OLD = "\n".join(f"l{i}" for i in range(1, 13))
NEW = OLD.replace("l2\n", "L2\n").replace("l11\n", "L11\n")


def _edit(**kw) -> FileEditObservation:
    return FileEditObservation(
        "", path="/f", prev_exist=True, old_content=OLD, new_content=NEW, **kw
    )


def test_two_separate_changes_render_as_two_groups() -> None:
    obs = _edit()
    expected = "\n".join(
        [
            "[Existing file /f is edited with 2 changes.]",
            "[begin of edit 1 / 2]",
            "(content before edit)",
            " 1|l1",
            "-2|l2",
            " 3|l3",
            " 4|l4",
            "(content after edit)",
            " 1|l1",
            "+2|L2",
            " 3|l3",
            " 4|l4",
            "[end of edit 1 / 2]",
            "-" * 25,
            "[begin of edit 2 / 2]",
            "(content before edit)",
            " 9|l9",
            "10|l10",
            "-11|l11",
            "12|l12",
            "(content after edit)",
            " 9|l9",
            "10|l10",
            "+11|L11",
            "12|l12",
            "[end of edit 2 / 2]",
        ]
    )
    assert obs.visualize_diff() == expected
    assert str(obs) == expected + "\n"
    # Rendered once, then cached and serialized.
    assert event_to_dict(obs)["extras"]["_diff_cache"] == expected


def test_more_context_merges_the_groups() -> None:
    groups = _edit().get_edit_groups(n_context_lines=5)
    assert len(groups) == 1
    assert groups[0]["before_edits"][0] == " 1|l1"
    assert groups[0]["after_edits"][-1] == "12|l12"


def test_a_change_not_applied_is_labelled_and_not_cached() -> None:
    obs = _edit()
    text = obs.visualize_diff(change_applied=False)
    lines = text.split("\n")
    assert lines[0] == (
        "[Changes are NOT applied to /f - Here's how the file looks like if changes are applied.]"
    )
    assert lines[1:3] == ["[begin of ATTEMPTED edit 1 / 2]", "(content before ATTEMPTED edit)"]
    assert "(content after ATTEMPTED edit)" in lines
    assert lines[-1] == "[end of ATTEMPTED edit 2 / 2]"
    assert event_to_dict(obs)["extras"]["_diff_cache"] is None


def test_string_forms_by_mode() -> None:
    same = FileEditObservation("", path="/s", prev_exist=True, old_content="x\n", new_content="x\n")
    assert str(same) == (
        "(no changes detected. Please make sure your edits change the content of the existing "
        "file.)\n"
    )
    created = FileEditObservation(
        "", path="/n", prev_exist=False, old_content=None, new_content="a"
    )
    assert str(created) == "[New file /n is created with the provided content.]\n"
    aci = FileEditObservation(
        "The file /a was edited.", path="/a", prev_exist=True, impl_source=FileEditSource.OH_ACI
    )
    assert str(aci) == "The file /a was edited."
