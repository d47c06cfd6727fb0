"""What an agent asks the sandbox to provide (plugins are started by the action server)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PluginRequirement:
    name: str


@dataclass(frozen=True)
class JupyterRequirement(PluginRequirement):
    name: str = "jupyter"


@dataclass(frozen=True)
class AgentSkillsRequirement(PluginRequirement):
    name: str = "agent_skills"
    documentation: str = (
        "open_file(path, line_number=None, context_lines=100): show a window of a file\n"
        "goto_line(line_number): move the window of the open file\n"
        "scroll_down() / scroll_up(): move the window by one page\n"
        "search_dir(search_term, dir_path='./'): find a term in every file under a directory\n"
        "search_file(search_term, file_path=None): find a term in one file\n"
        "find_file(file_name, dir_path='./'): find files by name\n"
        "file_editor(command, path, ...): the str_replace_editor tool as a function\n"
    )


@dataclass(frozen=True)
class VSCodeRequirement(PluginRequirement):
    name: str = "vscode"


ALL_PLUGINS: dict[str, type[PluginRequirement]] = {
    "jupyter": JupyterRequirement,
    "agent_skills": AgentSkillsRequirement,
    "vscode": VSCodeRequirement,
}
