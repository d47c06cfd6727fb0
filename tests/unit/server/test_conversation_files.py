"""Per-conversation routes (server-api §6.4) against a running conversation."""

from __future__ import annotations

import io
import zipfile

from tests.unit.server.test_conversation_routes import create, wait_running


async def running_conversation(harness) -> str:
    await harness.store_settings()
    conversation_id = await create(harness)
    await wait_running(harness, conversation_id)
    return conversation_id


async def test_unknown_conversation_is_404_everywhere(harness) -> None:
    unknown = "0" * 32
    for path in (
        "config",
        "vscode-url",
        "web-hosts",
        "list-files",
        "select-file?file=a",
        "zip-directory",
        "git/changes",
        "git/diff?path=a",
        "trajectory",
        "security/policy",
    ):
        response = await harness.client.get(f"/api/conversations/{unknown}/{path}")
        assert response.status_code == 404, path
        assert response.json() == {"detail": f"Conversation {unknown} not found"}
    events = await harness.client.get(f"/api/conversations/{unknown}/events")
    assert events.status_code == 404
    assert events.json() == {"detail": f"Conversation {unknown} not found"}


async def test_stopped_conversation_without_sandbox_is_404(harness) -> None:
    conversation_id = await running_conversation(harness)
    await harness.client.post(f"/api/conversations/{conversation_id}/stop")
    response = await harness.client.get(f"/api/conversations/{conversation_id}/list-files")
    assert response.status_code == 404
    assert response.json() == {"detail": f"Conversation {conversation_id} not found"}


async def test_runtime_info_routes(harness) -> None:
    conversation_id = await running_conversation(harness)
    base = f"/api/conversations/{conversation_id}"
    assert (await harness.client.get(f"{base}/config")).json() == {
        "runtime_id": None,
        "session_id": conversation_id,
    }
    assert (await harness.client.get(f"{base}/vscode-url")).json() == {
        "vscode_url": "http://localhost:3333/?tkn=token&folder=/workspace"
    }
    assert (await harness.client.get(f"{base}/web-hosts")).json() == {
        "hosts": {"http://localhost:4141": 4141}
    }


async def test_list_and_select_files(harness) -> None:
    workspace = harness.workspace
    (workspace / "src").mkdir()
    (workspace / "src" / "main.py").write_text("print('hi')\n")
    (workspace / "node_modules").mkdir()
    (workspace / ".git").mkdir()
    (workspace / "build.log").write_text("x")
    (workspace / ".gitignore").write_text("*.log\n")
    (workspace / "blob.bin").write_bytes(b"\x00\x01\x02")
    conversation_id = await running_conversation(harness)
    base = f"/api/conversations/{conversation_id}"
    listing = (await harness.client.get(f"{base}/list-files")).json()
    assert listing == [".gitignore", "blob.bin", "src/"]
    nested = (await harness.client.get(f"{base}/list-files", params={"path": "src"})).json()
    assert nested == ["src/main.py"]
    code = await harness.client.get(f"{base}/select-file", params={"file": "src/main.py"})
    assert code.json() == {"code": "print('hi')\n"}
    binary = await harness.client.get(f"{base}/select-file", params={"file": "blob.bin"})
    assert binary.status_code == 415
    assert binary.json() == {"error": "Unable to open binary file: /workspace/blob.bin"}
    missing = await harness.client.get(f"{base}/select-file", params={"file": "nope.txt"})
    assert missing.status_code == 404
    assert missing.json()["error"].startswith("Error opening file: File not found")
    assert (await harness.client.get(f"{base}/select-file")).status_code == 422


async def test_upload_keeps_bytes_and_zip(harness) -> None:
    conversation_id = await running_conversation(harness)
    base = f"/api/conversations/{conversation_id}"
    payload = bytes(range(256))
    response = await harness.client.post(
        f"{base}/upload-files",
        files=[
            ("files", ("data.bin", payload, "application/octet-stream")),
            ("files", ("notes.txt", b"hello", "text/plain")),
            ("files", ("../evil.txt", b"x", "text/plain")),
        ],
    )
    body = response.json()
    assert body["uploaded_files"] == ["/workspace/data.bin", "/workspace/notes.txt"]
    assert body["skipped_files"][0]["reason"] == "Invalid file name"
    assert (harness.workspace / "data.bin").read_bytes() == payload

    archive = await harness.client.get(f"{base}/zip-directory")
    assert archive.status_code == 200
    assert archive.headers["content-type"] == "application/zip"
    assert 'filename="workspace.zip"' in archive.headers["content-disposition"]
    names = zipfile.ZipFile(io.BytesIO(archive.content)).namelist()
    assert "data.bin" in names and "notes.txt" in names


async def test_git_routes(harness) -> None:
    conversation_id = await running_conversation(harness)
    base = f"/api/conversations/{conversation_id}"
    not_git = await harness.client.get(f"{base}/git/changes")
    assert not_git.status_code == 404
    assert not_git.json() == {"error": "Not a git repository"}
    (harness.workspace / ".git").mkdir()
    (harness.workspace / "hello.py").write_text("new")
    assert (await harness.client.get(f"{base}/git/changes")).json() == [
        {"status": "M", "path": "hello.py"}
    ]
    diff = await harness.client.get(f"{base}/git/diff", params={"path": "hello.py"})
    assert diff.json() == {"modified": "new", "original": ""}


async def test_events_search(harness) -> None:
    conversation_id = await running_conversation(harness)
    base = f"/api/conversations/{conversation_id}"
    for index in range(5):
        response = await harness.client.post(f"{base}/message", json={"message": f"m{index}"})
        assert response.json() == {"success": True}
    everything = (await harness.client.get(f"{base}/events", params={"limit": 100})).json()
    ids = [event["id"] for event in everything["events"]]
    assert ids == sorted(ids) and ids[0] == 0
    assert everything["has_more"] is False
    page = (await harness.client.get(f"{base}/events", params={"start_id": 1, "end_id": 3})).json()
    assert [e["id"] for e in page["events"]] == [1, 2, 3]
    backwards = (
        await harness.client.get(
            f"{base}/events", params={"start_id": 1, "end_id": 3, "reverse": True}
        )
    ).json()
    assert [e["id"] for e in backwards["events"]] == [3, 2, 1]
    limited = (await harness.client.get(f"{base}/events", params={"limit": 2})).json()
    assert [e["id"] for e in limited["events"]] == [0, 1] and limited["has_more"] is True
    for bad in (101, -1):
        response = await harness.client.get(f"{base}/events", params={"limit": bad})
        assert response.status_code == 400
        assert response.json() == {"detail": "Invalid limit"}
    # Stored dicts come back as stored: environment events keep their source.
    assert everything["events"][0]["source"] == "environment"


async def test_message_and_events_need_a_running_loop(harness) -> None:
    conversation_id = await running_conversation(harness)
    base = f"/api/conversations/{conversation_id}"
    posted = await harness.client.post(
        f"{base}/events", json={"action": "message", "args": {"content": "raw"}}
    )
    assert posted.json() == {"success": True}
    await harness.client.post(f"{base}/stop")
    failed = await harness.client.post(f"{base}/message", json={"message": "late"})
    assert failed.status_code == 409  # not running: the caller's to fix, not a server error
    body = failed.json()
    assert body["success"] is False
    assert body["error"].startswith("Error adding message to conversation: ")
    assert (await harness.client.post(f"{base}/events", json={})).status_code == 409


async def test_trajectory_feedback_and_microagents(harness) -> None:
    conversation_id = await running_conversation(harness)
    base = f"/api/conversations/{conversation_id}"
    trajectory = (await harness.client.get(f"{base}/trajectory")).json()["trajectory"]
    assert trajectory and trajectory[0]["observation"] == "agent_state_changed"
    feedback = await harness.client.post(
        f"{base}/submit-feedback",
        json={"email": "a@b.c", "version": "0.59.0", "polarity": "positive"},
    )
    body = feedback.json()
    assert body["statusCode"] == 200
    assert set(body["body"]) == {"message", "feedback_id", "password"}
    bad = await harness.client.post(
        f"{base}/submit-feedback", json={"email": "a", "version": "1", "polarity": "meh"}
    )
    assert bad.status_code == 422
    assert (await harness.client.get(f"{base}/microagents")).json() == {"microagents": []}
    await harness.client.post(f"{base}/stop")
    gone = await harness.client.get(f"{base}/microagents")
    assert gone.status_code == 404
    assert gone.json() == {"error": "Agent session not found for this conversation"}


async def test_security_routes(harness) -> None:
    conversation_id = await running_conversation(harness)
    response = await harness.client.get(f"/api/conversations/{conversation_id}/security/policy")
    assert response.status_code == 404
    assert response.json() == {"error": "Security analyzer not initialized"}
    for method in ("GET", "POST"):
        response = await harness.client.request(method, "/api/security/policy")
        assert response.status_code == 404
        assert response.json() == {"detail": "Not Found"}
