"""Our str_replace_editor (runtime.md §5.3–5.4).

- editor.py: OHEditor, the commands and their checks
- actions.py: FileReadAction/FileEditAction (oh_aci) → observations, with the unified diff
- render.py: ``cat -n`` snippets and output clipping
- directory.py: the two-level directory view
- history.py: on-disk undo history
- encoding.py: read/write keeping a file's encoding
- markdown.py: Markdown view of binary documents (optional converter)
- errors.py: ToolError and its message-carrying subclasses
"""

# actions.py (which needs the events package) is imported by its users directly, so the
# IPython kernel's `file_editor` loads only the editor itself.
from openhands.runtime.utils.editor.editor import OHEditor, ToolResult
from openhands.runtime.utils.editor.errors import ToolError

__all__ = ["OHEditor", "ToolError", "ToolResult"]
