"""What the agent reads from a browser step: content blocks, axtree text, page Markdown."""

from __future__ import annotations

from openhands.runtime.browser.axtree import flatten_axtree, render_axtree
from openhands.runtime.browser.content import browse_content, interactive_content
from openhands.runtime.browser.markdown import html_to_markdown

AXTREE_INTRO = (
    "Accessibility tree of the COMPLETE webpage:\n"
    "Note: [bid] is the unique alpha-numeric identifier at the beginning of lines for each "
    "element in the AXTree. Always use bid to refer to elements in your actions.\n"
    "============== BEGIN accessibility tree ==============\n"
)


def test_interactive_content_success() -> None:
    text = interactive_content("http://h/", "7", "/w/.browser_screenshots/s.png", "", "TREE")
    assert text == (
        "[Current URL: http://h/]\n[Focused element bid: 7]\n"
        "[Screenshot saved to: /w/.browser_screenshots/s.png]\n\n"
        "[Action executed successfully.]\n"
        + AXTREE_INTRO
        + "TREE\n============== END accessibility tree ==============\n"
    )


def test_interactive_content_error_and_no_screenshot() -> None:
    text = interactive_content("", "", None, "ValueError: boom", "")
    assert text == (
        "[Current URL: ]\n[Focused element bid: ]\n\n"
        "================ BEGIN error message ===============\n"
        "The following error occurred when executing the last action:\n"
        "ValueError: boom\n"
        "================ END error message ===============\n"
        + AXTREE_INTRO
        + "\n============== END accessibility tree ==============\n"
    )


def test_interactive_content_visible_only_heading() -> None:
    text = interactive_content("u", "", None, "", "T", visible_only=True)
    assert "Accessibility tree of the VISIBLE portion of the webpage (" in text
    assert "COMPLETE" not in text


def test_browse_content_with_and_without_error() -> None:
    assert browse_content("http://h/", "", "# Title") == (
        "[Current URL: http://h/]\n"
        "============== BEGIN webpage content ==============\n"
        "# Title\n"
        "============== END webpage content ==============\n"
    )
    assert browse_content("http://h/", "Error: refused", "") == (
        "[Current URL: http://h/]\n"
        "================ BEGIN error message ===============\n"
        "The following error occurred when trying to visit the URL:\n"
        "Error: refused\n"
        "================ END error message ===============\n"
        "============== BEGIN webpage content ==============\n"
        "\n"
        "============== END webpage content ==============\n"
    )


TREE = {
    "role": "RootWebArea",
    "name": "Sign in",
    "props": {"focused": True},
    "children": [
        {
            "role": "heading",
            "name": "Welcome",
            "bid": "3",
            "props": {"level": 1},
            "children": [{"role": "StaticText", "name": "Welcome"}],
        },
        {
            "role": "link",
            "name": "Docs",
            "bid": "4",
            "clickable": True,
            "props": {"url": "https://example.test/docs"},
            "children": [{"role": "StaticText", "name": "Docs"}],
        },
        {
            "role": "textbox",
            "name": "Name",
            "bid": "5",
            "value": "x",
            "clickable": True,
            "props": {"required": True, "expanded": False},
            "children": [],
        },
        {"role": "StaticText", "name": "it's plain"},
    ],
}


def test_render_axtree_lines() -> None:
    assert render_axtree(TREE) == "\n".join(
        [
            "RootWebArea 'Sign in', focused",
            "\t[3] heading 'Welcome', level=1",
            "\t[4] link 'Docs', clickable, url='https://example.test/docs'",
            "\t[5] textbox 'Name' value='x', clickable, required, expanded=False",
            '\tStaticText "it\'s plain"',
        ]
    )


def test_flatten_axtree_links_parents_and_children() -> None:
    nodes = flatten_axtree(TREE)["nodes"]
    assert [n["role"] for n in nodes] == [
        "RootWebArea",
        "heading",
        "StaticText",
        "link",
        "StaticText",
        "textbox",
        "StaticText",
    ]
    assert nodes[0]["childIds"] == ["1", "3", "5", "6"]
    assert nodes[2]["parentId"] == "1"
    assert nodes[5]["bid"] == "5" and nodes[5]["value"] == "x"


def test_markdown_keeps_links_drops_images_and_scripts() -> None:
    html = """<html><head><title>T</title><style>p{}</style></head><body>
      <h1>Hello <b>world</b></h1>
      <p>Read the <a href="/docs">fine   manual</a> <img src="x.png" alt="logo"> now.</p>
      <script>document.write('no')</script>
      <ul><li>one</li><li>two<ul><li>deep</li></ul></li></ul>
      <ol><li>first<li>second</ol>
      <table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>
      <pre>  keep   spacing</pre>
      <p>a very long line that must not be wrapped at all even past eighty characters, no matter what</p>
    </body></html>"""
    assert html_to_markdown(html) == "\n".join(
        [
            "# Hello **world**",
            "",
            "Read the [fine manual](/docs) now.",
            "",
            "  * one",
            "  * two",
            "    * deep",
            "",
            "  1. first",
            "  2. second",
            "",
            "A | B",
            "--- | ---",
            "1 | 2",
            "",
            "```",
            "  keep   spacing",
            "```",
            "",
            "a very long line that must not be wrapped at all even past eighty characters, "
            "no matter what",
        ]
    )


def test_markdown_tolerates_broken_html() -> None:
    text = html_to_markdown("<div><p>open <b>bold</div></span><p>next")
    assert text == "open **bold**\n\nnext"


def test_markdown_survives_absurd_nesting() -> None:
    html = "<div>" * 5000 + "deep text" + "</div>" * 5000
    assert "deep text" in html_to_markdown(html)
