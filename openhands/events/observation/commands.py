"""Observations of shell commands and IPython cells."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from openhands.core.schema import ObservationType
from openhands.events.observation.observation import Observation

CMD_OUTPUT_PS1_BEGIN = "\n###PS1JSON###\n"
CMD_OUTPUT_PS1_END = "\n###PS1END###"
CMD_OUTPUT_METADATA_PS1_REGEX = re.compile(
    f"^{CMD_OUTPUT_PS1_BEGIN.strip()}(.*?){CMD_OUTPUT_PS1_END.strip()}",
    re.DOTALL | re.MULTILINE,
)

MAX_CMD_OUTPUT_CHARS = 30_000
MAX_CMD_OUTPUT_SIZE = MAX_CMD_OUTPUT_CHARS  # the reference's name
TRUNCATION_MARKER = "\n[... Observation truncated due to length ...]\n"


def _int_or_unknown(value: Any) -> int:
    try:
        return int(float(value))
    except (TypeError, ValueError):
        return -1


class CmdOutputMetadata(BaseModel):
    """Shell state captured from the PS1 prompt after a command."""

    exit_code: int = -1
    pid: int = -1
    username: str | None = None
    hostname: str | None = None
    working_dir: str | None = None
    py_interpreter_path: str | None = None
    prefix: str = ""
    suffix: str = ""

    @classmethod
    def to_ps1_prompt(cls) -> str:
        """The PS1 value that makes bash print this metadata as JSON after every command."""
        fields = {
            "pid": "$!",
            "exit_code": "$?",
            "username": r"\u",
            "hostname": r"\h",
            "working_dir": r"$(pwd)",
            "py_interpreter_path": r'$(which python 2>/dev/null || echo "")',
        }
        body = json.dumps(fields, indent=2).replace('"', r"\"")
        return CMD_OUTPUT_PS1_BEGIN + body + CMD_OUTPUT_PS1_END + "\n"

    @classmethod
    def matches_ps1_metadata(cls, text: str) -> list[re.Match[str]]:
        matches = []
        for match in CMD_OUTPUT_METADATA_PS1_REGEX.finditer(text):
            try:
                json.loads(match.group(1).strip())
            except json.JSONDecodeError:
                continue
            matches.append(match)
        return matches

    @classmethod
    def from_ps1_match(cls, match: re.Match[str]) -> CmdOutputMetadata:
        data = json.loads(match.group(1))
        values: dict[str, Any] = {}
        for key in ("username", "hostname", "working_dir", "py_interpreter_path"):
            if data.get(key):
                values[key] = data[key]
        values["pid"] = _int_or_unknown(data.get("pid"))
        values["exit_code"] = _int_or_unknown(data.get("exit_code"))
        return cls(**values)


def truncate_cmd_output(content: str) -> str:
    """Keep the head and tail of long output; idempotent on its own result."""
    if len(content) <= MAX_CMD_OUTPUT_CHARS:
        return content
    half = MAX_CMD_OUTPUT_CHARS // 2
    return content[:half] + TRUNCATION_MARKER + content[-half:]


@dataclass(init=False)
class CmdOutputObservation(Observation):
    command: str
    metadata: CmdOutputMetadata = field(default_factory=CmdOutputMetadata)
    hidden: bool = False

    observation = ObservationType.RUN.value

    def __init__(
        self,
        content: str,
        command: str,
        metadata: CmdOutputMetadata | dict[str, Any] | None = None,
        hidden: bool = False,
        **legacy: Any,
    ) -> None:
        # Unknown keywords are accepted and ignored, as the reference does; the two legacy
        # ones are folded into the metadata.
        if isinstance(metadata, dict):
            # What model_validate runs, without its Python-level argument handling: this is
            # on the hot path of reading stored events.
            self.metadata = CmdOutputMetadata.__pydantic_validator__.validate_python(metadata)
        else:
            self.metadata = metadata if metadata is not None else CmdOutputMetadata()
        if "exit_code" in legacy:
            self.metadata.exit_code = legacy["exit_code"]
        if "command_id" in legacy:
            self.metadata.pid = legacy["command_id"]
        self.command = command
        self.hidden = hidden
        self.content = content if hidden else truncate_cmd_output(content)

    @property
    def exit_code(self) -> int:
        return self.metadata.exit_code

    @property
    def command_id(self) -> int:
        return self.metadata.pid

    @property
    def error(self) -> bool:
        return self.exit_code != 0

    @property
    def success(self) -> bool:
        return not self.error

    @property
    def message(self) -> str:
        return f"Command `{self.command}` executed with exit code {self.exit_code}."

    def to_agent_observation(self) -> str:
        """The text the agent sees: output plus working-directory/interpreter/exit-code lines."""
        text = self.metadata.prefix + self.content + self.metadata.suffix
        if self.metadata.working_dir:
            text += f"\n[Current working directory: {self.metadata.working_dir}]"
        if self.metadata.py_interpreter_path:
            text += f"\n[Python interpreter: {self.metadata.py_interpreter_path}]"
        if self.metadata.exit_code != -1:
            text += f"\n[Command finished with exit code {self.metadata.exit_code}]"
        return text

    def __str__(self) -> str:
        return (
            f"**CmdOutputObservation (source={self.source}, exit code={self.exit_code})**\n"
            f"--BEGIN AGENT OBSERVATION--\n{self.to_agent_observation()}\n--END AGENT OBSERVATION--"
        )


@dataclass
class IPythonRunCellObservation(Observation):
    code: str
    image_urls: list[str] | None = None

    observation = ObservationType.RUN_IPYTHON.value

    @property
    def error(self) -> bool:
        return False

    @property
    def success(self) -> bool:
        return True

    @property
    def message(self) -> str:
        return "Code executed in IPython cell."

    def __str__(self) -> str:
        text = f"**IPythonRunCellObservation**\n{self.content}"
        if self.image_urls:
            text += f"\nImages: {len(self.image_urls)}"
        return text
