"""The scripted OpenAI-compatible server itself, spoken to over raw HTTP."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer


def _post(
    server: ScriptedLLMServer, body: dict, path: str = "/v1/chat/completions"
) -> httpx.Response:
    return httpx.post(server.url + path, json=body, timeout=5)


def test_models_endpoint(scripted_llm: ScriptedLLMServer) -> None:
    response = httpx.get(scripted_llm.base_url + "/models", timeout=5)
    assert response.status_code == 200
    assert response.json()["data"][0]["id"] == "test-model"


def test_text_reply_shape_and_usage(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.text("hello", usage=s.Usage(prompt_tokens=11, completion_tokens=3)))
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    data = _post(scripted_llm, body, "/chat/completions").json()
    assert data["choices"][0]["message"] == {"role": "assistant", "content": "hello"}
    assert data["choices"][0]["finish_reason"] == "stop"
    assert data["usage"] == {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}
    assert data["model"] == "m"
    assert scripted_llm.last_request.body == body


def test_tool_calls_get_generated_ids(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(
        s.tool_calls([("think", {"thought": "a"}), ("finish", {"message": "b"})], content="x")
    )
    data = _post(scripted_llm, {"messages": []}).json()
    message = data["choices"][0]["message"]
    assert [c["id"] for c in message["tool_calls"]] == ["call_scripted_1", "call_scripted_2"]
    assert json.loads(message["tool_calls"][1]["function"]["arguments"]) == {"message": "b"}
    assert data["choices"][0]["finish_reason"] == "tool_calls"


def test_errors_use_openai_bodies(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.rate_limit_error(retry_after=0), s.context_window_error())
    first = _post(scripted_llm, {"messages": []})
    assert first.status_code == 429
    assert first.headers["retry-after"] == "0"
    assert first.json()["error"]["code"] == "rate_limit_exceeded"
    second = _post(scripted_llm, {"messages": []})
    assert second.status_code == 400
    assert "maximum context length" in second.json()["error"]["message"]


def test_responder_sees_the_request(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(lambda req: s.text(f"{len(req['messages'])} messages"))
    data = _post(scripted_llm, {"messages": [{"role": "user", "content": "a"}] * 3}).json()
    assert data["choices"][0]["message"]["content"] == "3 messages"


def test_exhausted_script_fails_fast_unless_fallback(scripted_llm: ScriptedLLMServer) -> None:
    response = _post(scripted_llm, {"messages": []})
    assert response.status_code == 400
    assert "script exhausted" in response.json()["error"]["message"]
    assert scripted_llm.exhausted_calls == 1
    scripted_llm.fallback = s.text("again")
    assert (
        _post(scripted_llm, {"messages": []}).json()["choices"][0]["message"]["content"] == "again"
    )


def test_unknown_path_is_404(scripted_llm: ScriptedLLMServer) -> None:
    assert _post(scripted_llm, {}, "/v1/embeddings").status_code == 404


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("hi", s.text("hi")),
        ({"text": "hi"}, s.text("hi")),
        ({"error": 429}, s.rate_limit_error()),
        ({"error": "context_window"}, s.context_window_error()),
        ({"error": 503}, s.service_unavailable()),
        ({"error": 502, "message": "down"}, s.ErrorReply(status=502, message="down")),
        (
            {"content": "c", "tool_calls": [{"name": "think", "arguments": {"thought": "t"}}]},
            s.Reply(content="c", tool_calls=(s.ScriptedToolCall("think", {"thought": "t"}),)),
        ),
    ],
)
def test_script_items_from_json(data: object, expected: object) -> None:
    assert s.item_from_json(data) == expected


def test_command_line_server(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(["first", {"error": 500}]))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.support.scripted_llm", "--script", str(script)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[3],
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        base_url = line.strip().rsplit(" ", 1)[-1]
        assert base_url.startswith("http://127.0.0.1:")
        deadline = time.time() + 10
        while True:
            try:
                ok = httpx.post(base_url + "/chat/completions", json={"messages": []}, timeout=5)
                break
            except httpx.ConnectError:
                if time.time() > deadline:
                    raise
                time.sleep(0.05)
        assert ok.json()["choices"][0]["message"]["content"] == "first"
        assert httpx.post(base_url + "/chat/completions", json={}, timeout=5).status_code == 500
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()
