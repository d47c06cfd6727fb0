"""Text out of documents (PDF, Word, PowerPoint, LaTeX) for the IPython kernel (runtime.md §7).

The converters are optional packages; when one is missing the function says so plainly
instead of failing with an import error deep inside the kernel.
"""

from __future__ import annotations

import os
from pathlib import Path

from openhands.runtime.utils.editor import ToolError
from openhands.runtime.utils.editor.markdown import convert_to_markdown


def _print_document(file_path: str, kind: str, shown_kind: str | None = None) -> None:
    path = Path(os.path.abspath(file_path))
    if not path.is_file():
        print(f"ERROR: File {file_path} not found.")
        return
    try:
        text = convert_to_markdown(path)
    except ToolError as exc:
        print(f"ERROR: {kind} parsing is not available: {exc.message}")
        return
    print(f"[Reading {shown_kind or kind} file from {file_path}]")
    print(text.strip())


def parse_pdf(file_path: str) -> None:
    """Print the text of a PDF file (as Markdown).

    Args:
        file_path: the PDF file.
    """
    _print_document(file_path, "PDF")


def parse_docx(file_path: str) -> None:
    """Print the text of a Word (.docx) file (as Markdown).

    Args:
        file_path: the .docx file.
    """
    _print_document(file_path, "DOCX")


def parse_pptx(file_path: str) -> None:
    """Print the text of a PowerPoint (.pptx) file (as Markdown).

    Args:
        file_path: the .pptx file.
    """
    _print_document(file_path, "PPTX", "PowerPoint")


def parse_latex(file_path: str) -> None:
    """Print the text of a LaTeX file with the markup removed.

    Args:
        file_path: the .tex file.
    """
    path = os.path.abspath(file_path)
    if not os.path.isfile(path):
        print(f"ERROR: File {file_path} not found.")
        return
    try:
        from pylatexenc.latex2text import LatexNodes2Text  # optional dependency
    except ImportError:
        print(
            "ERROR: LaTeX parsing is not available: it needs the `pylatexenc` package, "
            "which is not installed in this sandbox."
        )
        return
    with open(path, encoding="utf-8", errors="replace") as handle:
        source = handle.read()
    print(f"[Reading LaTex file from {file_path}]")  # 0.59's spelling
    print(LatexNodes2Text().latex_to_text(source).strip())
