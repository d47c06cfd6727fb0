"""Microagents: markdown files with optional YAML frontmatter that extend the agent's prompt.

* a **repo** microagent (no triggers) is always added to the workspace context;
* a **knowledge** microagent is added when one of its triggers appears in a message;
* a **task** microagent (it declares ``inputs``) is a knowledge microagent triggered by
  ``/name`` that asks for its inputs first.

The type written in the frontmatter is validated but not trusted: it is inferred from
``inputs`` and ``triggers``.
"""

from __future__ import annotations

import io
import re
from itertools import chain
from pathlib import Path
from typing import Any, ClassVar

import frontmatter
from pydantic import BaseModel, ValidationError

from openhands.core.exceptions import MicroagentValidationError
from openhands.core.logger import openhands_logger as logger
from openhands.microagent.types import MicroagentMetadata, MicroagentType

LEGACY_INSTRUCTIONS_FILE = ".openhands_instructions"
LEGACY_INSTRUCTIONS_NAME = "repo_legacy"
CURSOR_RULES_FILE = ".cursorrules"
AGENTS_FILES = ("AGENTS.md", "agents.md", "AGENT.md", "agent.md")
# Instruction files of other tools, by lower-cased file name → microagent name.
THIRD_PARTY_FILE_NAMES: dict[str, str] = {
    CURSOR_RULES_FILE: "cursorrules",
    "agents.md": "agents",
    "agent.md": "agents",
}
_VARIABLE = re.compile(r"\$\{([a-zA-Z_][a-zA-Z0-9_]*)\}")
ASK_FOR_INPUTS = (
    "\n\nBefore starting, check that the user gave a value for every variable above; "
    "if any is missing, ask the user for it first."
)


class BaseMicroagent(BaseModel):
    name: str
    content: str
    metadata: MicroagentMetadata
    source: str  # the file it came from
    type: MicroagentType

    EXPECTED_TYPES: ClassVar[tuple[MicroagentType, ...]] = ()

    def model_post_init(self, context: Any) -> None:
        if self.EXPECTED_TYPES and self.type not in self.EXPECTED_TYPES:
            raise ValueError(f"{type(self).__name__} cannot have type {self.type.value}")

    @classmethod
    def load(
        cls,
        path: str | Path,
        microagent_dir: str | Path | None = None,
        file_content: str | None = None,
    ) -> BaseMicroagent:
        """Read one microagent file (or ``file_content`` given for ``path``).

        With ``microagent_dir``, the name is the path relative to it without ``.md``;
        otherwise the frontmatter ``name``. Raises MicroagentValidationError on bad
        frontmatter.
        """
        path = Path(path)
        if file_content is None:
            file_content = path.read_text(encoding="utf-8")

        if path.name == LEGACY_INSTRUCTIONS_FILE:
            return _repo_microagent(LEGACY_INSTRUCTIONS_NAME, file_content, path)
        third_party_name = THIRD_PARTY_FILE_NAMES.get(path.name.lower())
        if third_party_name is not None:
            return _repo_microagent(third_party_name, file_content, path)

        post = frontmatter.load(io.StringIO(file_content))
        metadata = _parse_metadata(dict(post.metadata or {}), path)

        if metadata.inputs:
            kind = MicroagentType.TASK
            slash_trigger = f"/{metadata.name}"
            if slash_trigger not in metadata.triggers:
                metadata.triggers.append(slash_trigger)
        elif metadata.triggers:
            kind = MicroagentType.KNOWLEDGE
        else:
            kind = MicroagentType.REPO_KNOWLEDGE

        name = metadata.name
        if microagent_dir is not None:
            name = str(path.relative_to(Path(microagent_dir)).with_suffix(""))
        agent_cls = _CLASS_BY_TYPE[kind]
        return agent_cls(
            name=name, content=post.content, metadata=metadata, source=str(path), type=kind
        )


class KnowledgeMicroagent(BaseMicroagent):
    """Added to the conversation when a message contains one of its triggers."""

    EXPECTED_TYPES: ClassVar[tuple[MicroagentType, ...]] = (
        MicroagentType.KNOWLEDGE,
        MicroagentType.TASK,
    )

    @property
    def triggers(self) -> list[str]:
        return self.metadata.triggers

    def match_trigger(self, message: str) -> str | None:
        """The first trigger found in ``message`` (case-insensitive substring), if any."""
        if not message:
            return None
        lowered = message.lower()
        for trigger in self.triggers:
            if trigger.lower() in lowered:
                return trigger
        return None


class RepoMicroagent(BaseMicroagent):
    """Always part of the workspace context (repository instructions)."""

    EXPECTED_TYPES: ClassVar[tuple[MicroagentType, ...]] = (MicroagentType.REPO_KNOWLEDGE,)


class TaskMicroagent(KnowledgeMicroagent):
    """A knowledge microagent that needs values from the user (``inputs`` / ``${var}``)."""

    EXPECTED_TYPES: ClassVar[tuple[MicroagentType, ...]] = (MicroagentType.TASK,)

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        if self.metadata.inputs or self.requires_user_input():
            self.content += ASK_FOR_INPUTS

    @property
    def inputs(self) -> list[Any]:
        return self.metadata.inputs

    @staticmethod
    def extract_variables(content: str) -> list[str]:
        return _VARIABLE.findall(content)

    def requires_user_input(self) -> bool:
        return bool(self.extract_variables(self.content))


_CLASS_BY_TYPE: dict[MicroagentType, type[BaseMicroagent]] = {
    MicroagentType.KNOWLEDGE: KnowledgeMicroagent,
    MicroagentType.REPO_KNOWLEDGE: RepoMicroagent,
    MicroagentType.TASK: TaskMicroagent,
}


def _repo_microagent(name: str, content: str, path: Path) -> RepoMicroagent:
    return RepoMicroagent(
        name=name,
        content=content,
        metadata=MicroagentMetadata(name=name),
        source=str(path),
        type=MicroagentType.REPO_KNOWLEDGE,
    )


def _parse_metadata(data: dict[str, Any], path: Path) -> MicroagentMetadata:
    # YAML reads `version: 1.0` as a float; the model wants text.
    if "version" in data and not isinstance(data["version"], str):
        data["version"] = str(data["version"])
    try:
        metadata = MicroagentMetadata(**data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        message = f"Error validating microagent metadata in {path.name}: {problems}."
        if any(err["loc"] == ("type",) for err in exc.errors()):
            valid = ", ".join(f'"{t.value}"' for t in MicroagentType)
            message += f' Invalid "type" value: "{data.get("type")}". Valid types are: {valid}'
        raise MicroagentValidationError(message) from exc
    tools = metadata.mcp_tools
    if tools is not None:
        if tools.sse_servers:
            logger.warning(
                "Microagent %s declares SSE MCP servers; only stdio servers are used",
                metadata.name,
            )
        if not tools.stdio_servers:
            raise MicroagentValidationError(
                f"Microagent {metadata.name} declares mcp_tools without any stdio server; "
                "only stdio servers are supported"
            )
    return metadata


def load_microagents_from_dir(
    microagent_dir: str | Path,
) -> tuple[dict[str, RepoMicroagent], dict[str, KnowledgeMicroagent]]:
    """Load every ``*.md`` under ``microagent_dir`` (recursively, README.md excepted).

    Also picks up ``.cursorrules`` and the first ``AGENTS.md``-style file two levels up
    (the repository root for ``<repo>/.openhands/microagents``). Returns
    ``(repo microagents, knowledge and task microagents)`` keyed by name. The first file
    that fails to load aborts the whole directory.
    """
    microagent_dir = Path(microagent_dir)
    repo_root = microagent_dir.parent.parent
    extra_files: list[Path] = []
    if (repo_root / CURSOR_RULES_FILE).is_file():
        extra_files.append(repo_root / CURSOR_RULES_FILE)
    agents_file = next(
        (repo_root / n for n in AGENTS_FILES if _exists_with_exact_name(repo_root, n)), None
    )
    if agents_file is not None:
        extra_files.append(agents_file)

    md_files: list[Path] = []
    if microagent_dir.is_dir():
        md_files = sorted(p for p in microagent_dir.rglob("*.md") if p.name != "README.md")

    repo_agents: dict[str, RepoMicroagent] = {}
    knowledge_agents: dict[str, KnowledgeMicroagent] = {}
    for path in chain(extra_files, md_files):
        try:
            agent = BaseMicroagent.load(path, microagent_dir)
        except MicroagentValidationError as exc:
            raise MicroagentValidationError(f"Error loading microagent from {path}: {exc}") from exc
        except Exception as exc:
            raise ValueError(f"Error loading microagent from {path}: {exc}") from exc
        if isinstance(agent, RepoMicroagent):
            repo_agents[agent.name] = agent
        elif isinstance(agent, KnowledgeMicroagent):
            knowledge_agents[agent.name] = agent
    return repo_agents, knowledge_agents


def _exists_with_exact_name(directory: Path, name: str) -> bool:
    """Case-sensitive existence check, also on case-insensitive file systems."""
    try:
        return directory.is_dir() and name in {p.name for p in directory.iterdir()}
    except OSError:
        return False
