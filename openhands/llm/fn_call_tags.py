"""The text grammar of a mock function call and how a call is rendered in it.

<function=NAME>
<parameter=P1>value</parameter>
<parameter=P2>
multi-line value
</parameter>
</function>
"""

from __future__ import annotations

import json
import re
from typing import Any

FUNCTION_OPEN = "<function="
FUNCTION_CLOSE = "</function>"
STOP_WORD = "</function"

FUNCTION_PATTERN = r"<function=([^>]+)>\n(.*?)</function>"
PARAMETER_PATTERN = r"<parameter=([^>]+)>(.*?)</parameter>"
EXECUTION_RESULT_PATTERN = r"EXECUTION RESULT of \[(.*?)\]:\n(.*)"

FUNCTION_REGEX = re.compile(FUNCTION_PATTERN, re.DOTALL)
PARAMETER_REGEX = re.compile(PARAMETER_PATTERN, re.DOTALL)
# A model sometimes writes <parameter=NAME=VALUE</parameter>; the name holds no '>' or '='.
MALFORMED_PARAMETER_REGEX = re.compile(r"<parameter=([^>=\s]+)=(.*?)</parameter>", re.DOTALL)

EXECUTION_RESULT_PREFIX = "EXECUTION RESULT of [{name}]:\n"
EXECUTION_RESULT_REGEX = re.compile(EXECUTION_RESULT_PATTERN, re.DOTALL)


def render_parameter_value(value: Any) -> str:
    if isinstance(value, str):
        return f"\n{value}\n" if "\n" in value else value
    if isinstance(value, list | dict):
        return json.dumps(value)
    return str(value)


def render_function_call(name: str, arguments: dict[str, Any]) -> str:
    """One call in the tag format, parameters in the arguments' key order."""
    lines = [f"<function={name}>"]
    for key, value in arguments.items():
        lines.append(f"<parameter={key}>{render_parameter_value(value)}</parameter>")
    lines.append(FUNCTION_CLOSE)
    return "\n".join(lines)


def repair_stop_word(text: str) -> str:
    """Close a call the stop word cut off: a single ``<function=`` gets its ``</function>``."""
    if text.count(FUNCTION_OPEN) != 1:
        return text
    if text.endswith("</"):
        return text + "function>"
    return text + "\n" + FUNCTION_CLOSE


def normalize_malformed_parameters(text: str) -> str:
    return MALFORMED_PARAMETER_REGEX.sub(r"<parameter=\1>\2</parameter>", text)
