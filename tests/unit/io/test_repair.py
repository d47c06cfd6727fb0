"""openhands.io.repair: almost-JSON in, strict JSON text out."""

from __future__ import annotations

import json

import pytest

from openhands.io.repair import MAX_DEPTH, repair_first_object, repair_json


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1,}', {"a": 1}),
        ("[1,, 2,]", [1, 2]),
        ("{'a': 'b'}", {"a": "b"}),
        ("{“a”: “b”}", {"a": "b"}),
        ("{a: yes please, b: False, c: undefined}", {"a": "yes please", "b": False, "c": None}),
        ('{"a": }', {"a": ""}),
        ('{"a"}', {"a": ""}),
        ('{"a": "x"\n "b": "y"}', {"a": "x", "b": "y"}),
        ('{"a": "line\nbreak\tand tab"}', {"a": "line\nbreak\tand tab"}),
        ('{"p": "C:\\dir\\n"}', {"p": "C:\\dir\n"}),
        ("{'s': 'it\\'s', 't': 'don't'}", {"s": "it's", "t": "don't"}),
        ('{"u": "\\u00e9\\ud83d\\ude00"}', {"u": "é😀"}),
        ('/* lead */ {"a": 1 # trailing\n}', {"a": 1}),
        ('{"a": [1, {"b": 2]}', {"a": [1, {"b": 2}]}),
        ('{"a": [1, 2}', {"a": [1, 2]}),
        ('{"n": [+1, .5, 1., 1e3, -0.25, 1.2.3, 12px, NaN]}', None),
        ("[1, 2", [1, 2]),
        ("", ""),
    ],
)
def test_repairs(text: str, expected: object) -> None:
    repaired = repair_json(text)
    decoded = json.loads(repaired)  # always strict JSON
    if expected is None:  # numbers: checked one by one (NaN is not equal to itself)
        numbers = decoded["n"]
        assert numbers[:5] == [1, 0.5, 1.0, 1000, -0.25]
        assert numbers[5:7] == ["1.2.3", "12px"]
        assert numbers[7] != numbers[7]
    else:
        assert decoded == expected


def test_a_lone_surrogate_escape_survives_as_in_strict_json() -> None:
    assert json.loads(repair_json('["\\ud83d"]')) == json.loads('["\\ud83d"]')


def test_first_object_needs_its_closing_brace() -> None:
    assert repair_first_object('text {"a": [1, 2]} more') == '{"a":[1,2]}'
    assert repair_first_object("no object") is None
    assert repair_first_object('{"a": {"b": 1}') is None  # outer brace never closed
    assert repair_first_object('{"a": 1]') is None  # closed by the wrong bracket
    assert repair_first_object('{"a": "}') is None  # the brace is inside an open string


def test_nesting_is_bounded() -> None:
    assert json.loads(repair_json("[" * MAX_DEPTH)) is not None
    with pytest.raises(ValueError, match="nested deeper"):
        repair_json("[" * (MAX_DEPTH + 1))
