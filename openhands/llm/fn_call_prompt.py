"""Prompt text for mock function calling: the system-prompt suffix that lists the tools and
the in-context example wrapped around the first user message.

The wording is ours; the function-list layout and the tag grammar are interface facts.
"""

from __future__ import annotations

from typing import Any

from openhands.llm.fn_call_tags import render_function_call

# --------------------------------------------------------------------------------------
# System suffix
# --------------------------------------------------------------------------------------

_SUFFIX_HEADER = "\n\nThe following functions are available to you:\n\n"

_SUFFIX_FORMAT = """

To call a function, reply with the call in exactly this format and add nothing after it:

<function=example_function_name>
<parameter=example_parameter_1>value_1</parameter>
<parameter=example_parameter_2>
a value
that spans several lines
</parameter>
</function>

<IMPORTANT>
Keep in mind:
- A call opens with <function= and closes with </function>; any other shape is not understood
- Give every parameter marked as required
- Make one function call per message, never more
- You may explain your reasoning in plain text before the call, but write nothing after it
- When none of the functions fits, just answer in plain text without mentioning functions
</IMPORTANT>
"""


def _parameter_lines(parameters: dict[str, Any]) -> list[str]:
    properties: dict[str, Any] = parameters.get("properties", {}) or {}
    required = set(parameters.get("required", []) or [])
    lines: list[str] = []
    for j, (param, spec) in enumerate(properties.items(), start=1):
        param_type = spec.get("type", "string")
        status = "required" if param in required else "optional"
        description = spec.get("description") or "No description provided"
        if "enum" in spec:
            allowed = ", ".join(f"`{v}`" for v in spec["enum"])
            description += f"\nAllowed values: [{allowed}]"
        lines.append(f"  ({j}) {param} ({param_type}, {status}): {description}")
    return lines


def describe_function(index: int, tool: dict[str, Any]) -> str:
    function = tool["function"]
    name = function["name"]
    lines = [
        f"---- BEGIN FUNCTION #{index}: {name} ----",
        f"Description: {function.get('description', '')}",
    ]
    parameters = function.get("parameters")
    if parameters is None:
        lines.append("No parameters are required for this function.")
    else:
        lines.append("Parameters:")
        lines.extend(_parameter_lines(parameters))
    lines.append(f"---- END FUNCTION #{index} ----")
    return "\n".join(lines)


def describe_functions(tools: list[dict[str, Any]]) -> str:
    return "\n\n".join(describe_function(i, tool) for i, tool in enumerate(tools, start=1))


def system_suffix(tools: list[dict[str, Any]]) -> str:
    return _SUFFIX_HEADER + describe_functions(tools) + _SUFFIX_FORMAT


# --------------------------------------------------------------------------------------
# In-context example
# --------------------------------------------------------------------------------------

EXAMPLE_PREFIX_HEAD = """Below is a worked example of finishing a task with these functions.

=================== START OF EXAMPLE ===================
"""

EXAMPLE_PREFIX_TAIL = """
==================== END OF EXAMPLE ====================

The example only shows the format: your environment, files and tools may well differ.

================= NEW TASK DESCRIPTION =================
"""

EXAMPLE_SUFFIX = """
=============== END OF NEW TASK DESCRIPTION ===============

Follow the function-call format exactly, and emit ONE function call per message at most.
"""

_EXAMPLE_TASK = (
    "USER: Write a tiny web server in /workspace/greet.py that answers on port 8080 with a "
    "greeting and today's date, start it, and check that it works.\n"
)

_SCRIPT = "/workspace/greet.py"
_FIRST_VERSION = (
    "import datetime\n"
    "import bottle\n\n"
    "@bottle.route('/')\n"
    "def index():\n"
    "    return f'Hello! Today is {datetime.date.today()}.'\n\n"
    "bottle.run(host='0.0.0.0', port=8080)\n"
)
_OLD_LINE = "    return f'Hello! Today is {datetime.date.today()}.'"
_NEW_LINE = "    return f'Hello! Today is {datetime.date.today():%A, %d %B %Y}.'"


class _ExampleBuilder:
    """Renders example turns for the tools on offer (adding ``security_risk`` where required)."""

    def __init__(self, tools: list[dict[str, Any]]) -> None:
        functions = [t["function"] for t in tools if "function" in t]
        self.names = {f["name"] for f in functions}
        self.risk_aware = {
            f["name"]
            for f in functions
            if "security_risk" in ((f.get("parameters") or {}).get("properties") or {})
        }

    def turn(self, thought: str, name: str, arguments: dict[str, Any], result: str | None) -> str:
        if name in self.risk_aware:
            arguments = {**arguments, "security_risk": "LOW"}
        text = f"ASSISTANT: {thought}\n{render_function_call(name, arguments)}\n"
        if result is not None:
            text += f"\nUSER: EXECUTION RESULT of [{name}]:\n{result}\n"
        return text + "\n"

    def bash(self, thought: str, command: str, result: str) -> str:
        if "execute_bash" not in self.names:
            return ""
        return self.turn(thought, "execute_bash", {"command": command}, result)

    def create_file(self) -> str:
        thought = "The folder holds no greet.py yet. I will write the server."
        result = f"File created successfully at: {_SCRIPT}"
        if "str_replace_editor" in self.names:
            args = {"command": "create", "path": _SCRIPT, "file_text": _FIRST_VERSION}
            return self.turn(thought, "str_replace_editor", args, result)
        if "edit_file" in self.names:
            return self.turn(
                thought, "edit_file", {"path": _SCRIPT, "content": _FIRST_VERSION}, result
            )
        return ""

    def change_file(self) -> str:
        thought = "The page works. I will spell the date out with the weekday so it reads better."
        result = f"The file {_SCRIPT} has been edited: line 6 now formats the date."
        if "str_replace_editor" in self.names:
            args = {
                "command": "str_replace",
                "path": _SCRIPT,
                "old_str": _OLD_LINE,
                "new_str": _NEW_LINE,
            }
            return self.turn(thought, "str_replace_editor", args, result)
        if "edit_file" in self.names:
            content = f"#... the imports and route decorator stay as they are ...\n{_NEW_LINE}\n"
            edit = {"path": _SCRIPT, "content": content, "start": 6, "end": 6}
            return self.turn(thought, "edit_file", edit, result)
        return ""

    def browse(self) -> str:
        if "browser" not in self.names:
            return ""
        return self.turn(
            "I will open the page in the browser.",
            "browser",
            {"code": 'goto("http://127.0.0.1:8080")'},
            "[Current URL: http://127.0.0.1:8080/]\nHello! Today is 2025-03-14.",
        )

    def finish(self) -> str:
        if "finish" not in self.names:
            return ""
        message = (
            "The server in /workspace/greet.py is running on port 8080 and greets with the date."
        )
        return self.turn("Everything works.", "finish", {"message": message}, None)


def in_context_example(tools: list[dict[str, Any]]) -> str:
    """The example conversation, built only from the snippets whose tools are present.

    Empty when none of ``execute_bash``, the editors, ``browser`` or ``finish`` is offered.
    """
    b = _ExampleBuilder(tools)
    run = f"python3 {_SCRIPT} > /tmp/greet.log 2>&1 &"
    crash = (
        "Traceback (most recent call last):\n"
        f'  File "{_SCRIPT}", line 2, in <module>\n'
        "    import bottle\n"
        "ModuleNotFoundError: No module named 'bottle'"
    )
    parts = [
        b.bash("First I will look at the workspace.", "ls -la /workspace", "total 0"),
        b.create_file(),
        b.bash("Now I start the server in the background.", run, "[1] 4242"),
        b.bash("Let me read the log to see whether it started.", "cat /tmp/greet.log", crash),
        b.bash(
            "The bottle package is missing. I will install it.",
            "pip3 install bottle",
            "Successfully installed bottle-0.13.2",
        ),
        b.bash("Let me start the server again.", run, "[1] 4250"),
        b.browse(),
        b.bash("I will stop the server before changing it.", "kill 4250", "[1]+ Terminated"),
        b.change_file(),
        b.bash(
            "Restarting the server and fetching the page to check the new text.",
            f"{run} sleep 1 && curl -s http://127.0.0.1:8080",
            "[1] 4261\nHello! Today is Friday, 14 March 2025.",
        ),
        b.finish(),
    ]
    body = "".join(parts)
    if not body:
        return ""
    return EXAMPLE_PREFIX_HEAD + _EXAMPLE_TASK + "\n" + body + EXAMPLE_PREFIX_TAIL
