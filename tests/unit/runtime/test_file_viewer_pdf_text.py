"""The file viewer and the editor read a PDF's text (pypdf), so an agent without vision
can read a PDF it opens in the browser or views with the editor."""

from __future__ import annotations

from pathlib import Path

import pytest

from openhands.runtime.server.file_viewer import pdf_page_texts, render_view_page
from openhands.runtime.utils.editor.errors import ToolError
from openhands.runtime.utils.editor.markdown import convert_to_markdown


def write_pdf(path: Path, lines_per_page: list[str]) -> None:
    """A minimal valid PDF with one Helvetica text line per page."""
    count = len(lines_per_page)
    font = 3 + 2 * count
    objects = [
        b"<</Type/Catalog/Pages 2 0 R>>",
        b"<</Type/Pages/Kids[%s]/Count %d>>"
        % (b" ".join(b"%d 0 R" % (3 + 2 * i) for i in range(count)), count),
    ]
    for index, line in enumerate(lines_per_page):
        content = b"BT /F1 18 Tf 72 700 Td (%s) Tj ET" % line.encode()
        objects.append(
            b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents %d 0 R"
            b"/Resources<</Font<</F1 %d 0 R>>>>>>" % (4 + 2 * index, font)
        )
        objects.append(b"<</Length %d>>stream\n%s\nendstream" % (len(content), content))
    objects.append(b"<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>")
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<</Size %d/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    path.write_bytes(bytes(out))


def test_viewer_page_lays_out_each_pages_text(tmp_path: Path) -> None:
    pdf = tmp_path / "report <draft>.pdf"
    write_pdf(pdf, ["Quarterly figures", "Second page & more"])

    page = render_view_page(str(pdf))

    assert "<title>File Viewer - report &lt;draft&gt;.pdf</title>" in page
    assert '<section aria-label="Text of report &lt;draft&gt;.pdf">' in page
    assert "<h2>Page 1</h2><pre>Quarterly figures</pre>" in page
    assert "<h2>Page 2</h2><pre>Second page &amp; more</pre>" in page
    assert 'type="application/pdf"' in page


def test_damaged_pdf_says_its_text_cannot_be_extracted(tmp_path: Path) -> None:
    pdf = tmp_path / "broken.pdf"
    pdf.write_bytes(b"%PDF-1.4\nnot really a pdf")

    assert pdf_page_texts(str(pdf)) is None
    assert "The text of broken.pdf cannot be extracted in this sandbox." in render_view_page(
        str(pdf)
    )


def test_editor_markdown_of_a_pdf_without_markitdown(tmp_path: Path) -> None:
    pdf = tmp_path / "notes.pdf"
    write_pdf(pdf, ["alpha line", "beta line"])

    text = convert_to_markdown(pdf)

    assert text == "<!-- Page 1 -->\nalpha line\n\n<!-- Page 2 -->\nbeta line"


def test_editor_refuses_a_docx_it_cannot_convert(tmp_path: Path) -> None:
    doc = tmp_path / "letter.docx"
    doc.write_bytes(b"PK\x03\x04")
    with pytest.raises(ToolError, match="needs the `markitdown` package"):
        convert_to_markdown(doc)
