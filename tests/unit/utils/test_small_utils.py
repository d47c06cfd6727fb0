"""import_utils, search_utils, chunk_localizer, tenacity_stop, http_session, llm."""

from __future__ import annotations

import base64
import json
import random
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from tenacity import RetryError, Retrying, stop_after_attempt

from openhands.core.config import LLMConfig, OpenHandsConfig
from openhands.storage.conversation import paging
from openhands.utils import shutdown_listener
from openhands.utils.chunk_localizer import (
    Chunk,
    create_chunks,
    get_top_k_chunk_matches,
    normalized_lcs,
)
from openhands.utils.http_session import HttpSession
from openhands.utils.import_utils import get_impl, import_from
from openhands.utils.llm import OPENHANDS_MODELS, get_supported_llm_models
from openhands.utils.search_utils import iterate, offset_to_page_id, page_id_to_offset
from openhands.utils.tenacity_stop import stop_if_should_exit

# --- import_utils ------------------------------------------------------------------------


def test_import_from() -> None:
    assert import_from("openhands.utils.import_utils.get_impl") is get_impl
    with pytest.raises(ValueError):
        import_from("nodots")


def test_get_impl() -> None:
    from openhands.storage.files import FileStore
    from openhands.storage.memory import InMemoryFileStore

    assert get_impl(FileStore, None) is FileStore
    assert get_impl(FileStore, "openhands.storage.memory.InMemoryFileStore") is InMemoryFileStore
    with pytest.raises(AssertionError):
        get_impl(FileStore, "openhands.utils.http_session.HttpSession")


# --- search_utils ------------------------------------------------------------------------


def test_paging_functions_are_the_storage_ones() -> None:
    assert offset_to_page_id is paging.offset_to_page_id
    assert page_id_to_offset is paging.page_id_to_offset
    assert offset_to_page_id(20, True) == base64.b64encode(b"20").decode()
    assert offset_to_page_id(20, False) is None
    assert page_id_to_offset(None) == 0
    assert page_id_to_offset(offset_to_page_id(40, True)) == 40


@dataclass
class _Page:
    results: list[int]
    next_page_id: str | None


async def test_iterate_walks_every_page() -> None:
    pages = {None: _Page([1, 2], "p2"), "p2": _Page([3], "p3"), "p3": _Page([], None)}
    seen: list[tuple[str | None, str]] = []

    async def search(page_id: str | None = None, user: str = "") -> _Page:
        seen.append((page_id, user))
        return pages[page_id]

    assert [item async for item in iterate(search, user="u")] == [1, 2, 3]
    assert seen == [(None, "u"), ("p2", "u"), ("p3", "u")]


# --- chunk_localizer ---------------------------------------------------------------------


def _brute_lcs(a: str, b: str) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = (
                table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
            )
    return table[-1][-1]


def test_normalized_lcs_matches_the_textbook_lcs() -> None:
    rng = random.Random(7)
    for _ in range(200):
        a = "".join(rng.choice("abc\n") for _ in range(rng.randint(0, 30)))
        b = "".join(rng.choice("abc\n") for _ in range(rng.randint(1, 30)))
        expected = _brute_lcs(a, b) / len(a) if a else 0.0
        assert normalized_lcs(a, b) == expected
    # Normalised by the chunk: how much of the chunk the query covers.
    assert normalized_lcs("abc", "") == 0.0
    assert normalized_lcs("", "abc") == 0.0
    assert normalized_lcs("abc", "xabcx") == 1.0
    assert normalized_lcs("xabcx", "abc") == 0.6


def test_create_chunks_line_ranges() -> None:
    text = "\n".join(f"line {i}" for i in range(1, 8))
    chunks = create_chunks(text, size=3)
    assert [c.line_range for c in chunks] == [(1, 3), (4, 6), (7, 7)]
    assert chunks[1].text == "line 4\nline 5\nline 6"


def test_top_k_and_visualize(capsys: pytest.CaptureFixture[str]) -> None:
    text = "\n".join(["alpha", "beta", "def target_function():", "    return 42", "omega"])
    best = get_top_k_chunk_matches(
        text, "def target_function():\n    return 42", k=2, max_chunk_size=2
    )
    assert len(best) == 2
    assert best[0].line_range == (3, 4)
    assert best[0].normalized_lcs == 1.0
    assert (best[0].normalized_lcs or 0) >= (best[1].normalized_lcs or 0)
    rendered = Chunk(text="a\nb", line_range=(10, 11)).visualize()
    assert rendered == "10|a\n11|b\n"
    assert capsys.readouterr().out == rendered


# --- tenacity_stop -----------------------------------------------------------------------


def test_stop_if_should_exit() -> None:
    attempts: list[int] = []
    shutdown_listener.request_shutdown()
    try:
        with pytest.raises(RetryError):
            for attempt in Retrying(stop=stop_if_should_exit() | stop_after_attempt(5)):
                with attempt:
                    attempts.append(1)
                    raise RuntimeError("nope")
    finally:
        shutdown_listener.reset()
    assert len(attempts) == 1


# --- http_session and llm (against local servers) ----------------------------------------


@pytest.fixture
def local_server() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    seen: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append({"path": self.path, "headers": dict(self.headers.items())})
            body = json.dumps({"models": [{"name": "llama3:8b"}, {"name": "qwen"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_http_session_headers(local_server: tuple[str, list[dict[str, Any]]]) -> None:
    url, seen = local_server
    session = HttpSession(headers={"X-A": "1", "X-B": "session"})
    response = session.get(f"{url}/x", headers={"X-B": "call"})
    assert response.status_code == 200
    assert seen[-1]["headers"]["X-A"] == "1"
    assert seen[-1]["headers"]["X-B"] == "call"
    session.close()
    assert session.get(f"{url}/y").status_code == 200  # still works, logs an error


def test_get_supported_llm_models(local_server: tuple[str, list[dict[str, Any]]]) -> None:
    url, seen = local_server
    config = OpenHandsConfig()
    config.set_llm_config(LLMConfig(ollama_base_url=url))
    models = get_supported_llm_models(config)
    assert "ollama/llama3:8b" in models and "ollama/qwen" in models
    assert seen[-1]["path"] == "/api/tags"
    assert set(OPENHANDS_MODELS) <= set(models)
    assert "gpt-4o" in models or "openai/gpt-4o" in models
    assert models == sorted(set(models))


def test_bedrock_models_with_aws_credentials() -> None:
    import litellm

    config = OpenHandsConfig()
    config.set_llm_config(LLMConfig(aws_region_name="us-east-1"))
    models = get_supported_llm_models(config)
    assert {f"bedrock/{name}" for name in litellm.bedrock_models} <= set(models)
