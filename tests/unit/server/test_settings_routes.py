"""Settings and secrets routes (server-api §6.5)."""

from __future__ import annotations

import json
from pathlib import Path


def _store_file(harness, name: str) -> dict:
    root = Path(harness.services.config.file_store_path)
    return json.loads((root / name).read_text())


async def test_fresh_store_has_no_settings(harness) -> None:
    response = await harness.client.get("/api/settings")
    assert response.status_code == 404
    assert response.json() == {"error": "Settings not found"}


async def test_store_then_load(harness) -> None:
    response = await harness.client.post(
        "/api/settings",
        json={
            "llm_model": "anthropic/claude",
            "llm_api_key": "sk-secret",
            "agent": "CodeActAgent",
            "provider_tokens_set": {"github": "github.com"},  # extras are ignored
        },
    )
    assert response.status_code == 200
    assert response.json() == {"message": "Settings stored"}
    loaded = (await harness.client.get("/api/settings")).json()
    assert loaded["llm_model"] == "anthropic/claude"
    assert loaded["llm_api_key"] is None
    assert loaded["search_api_key"] is None and loaded["sandbox_api_key"] is None
    assert loaded["llm_api_key_set"] is True
    assert loaded["search_api_key_set"] is False
    assert loaded["provider_tokens_set"] == {}
    assert loaded["secrets_store"] == {"provider_tokens": {}}
    assert _store_file(harness, "settings.json")["llm_api_key"] == "sk-secret"


async def test_merge_rules_of_post(harness) -> None:
    await harness.client.post(
        "/api/settings",
        json={
            "llm_model": "m1",
            "llm_api_key": "k1",
            "llm_base_url": "http://llm",
            "language": "fr",
            "user_consents_to_analytics": True,
        },
    )
    # Omitted: the key, model, base url and consent are kept; language resets.
    await harness.client.post("/api/settings", json={"agent": "CodeActAgent"})
    stored = _store_file(harness, "settings.json")
    assert stored["llm_api_key"] == "k1"
    assert stored["llm_model"] == "m1"
    assert stored["llm_base_url"] == "http://llm"
    assert stored["user_consents_to_analytics"] is True
    assert stored["language"] is None
    # An empty key clears it.
    await harness.client.post("/api/settings", json={"llm_api_key": ""})
    assert _store_file(harness, "settings.json")["llm_api_key"] is None
    assert (await harness.client.get("/api/settings")).json()["llm_api_key_set"] is False


async def test_post_updates_process_defaults(harness) -> None:
    await harness.client.post(
        "/api/settings", json={"git_user_name": "ada", "git_user_email": "ada@example.com"}
    )
    assert harness.services.config.git_user_name == "ada"
    assert harness.services.config.git_user_email == "ada@example.com"


async def test_validation_errors(harness) -> None:
    small = await harness.client.post("/api/settings", json={"condenser_max_size": 5})
    assert small.status_code == 422
    assert small.json()["detail"][0]["loc"][-1] == "condenser_max_size"
    bad_mcp = await harness.client.post("/api/settings", json={"mcp_config": {"nope": []}})
    assert bad_mcp.status_code == 422


async def test_reset_settings_is_gone(harness) -> None:
    response = await harness.client.post("/api/reset-settings")
    assert response.status_code == 410
    assert response.json() == {"error": "Reset settings functionality has been removed."}


async def test_legacy_provider_tokens_move_to_secrets(harness) -> None:
    root = Path(harness.services.config.file_store_path)
    root.mkdir(parents=True, exist_ok=True)
    (root / "settings.json").write_text(
        json.dumps(
            {
                "llm_model": "m",
                "llm_api_key": "k",
                "secrets_store": {"provider_tokens": {"github": {"token": "ghp_x"}}},
            }
        )
    )
    loaded = (await harness.client.get("/api/settings")).json()
    assert loaded["provider_tokens_set"] == {"github": None}
    assert _store_file(harness, "secrets.json")["provider_tokens"]["github"]["token"] == "ghp_x"
    assert _store_file(harness, "settings.json")["secrets_store"] == {"provider_tokens": {}}
    assert _store_file(harness, "settings.json")["llm_api_key"] == "k"


async def test_custom_secrets_crud(harness) -> None:
    client = harness.client
    assert (await client.get("/api/secrets")).json() == {"custom_secrets": []}
    # PUT/DELETE without a secrets file do nothing.
    assert (await client.put("/api/secrets/X", json={"name": "Y"})).status_code == 200
    created = await client.post(
        "/api/secrets", json={"name": "API_TOKEN", "value": "v1", "description": "d"}
    )
    assert created.status_code == 201
    assert created.json() == {"message": "Secret created successfully"}
    duplicate = await client.post("/api/secrets", json={"name": "API_TOKEN", "value": "v2"})
    assert duplicate.status_code == 400
    assert duplicate.json() == {"message": "Secret API_TOKEN already exists"}
    names = (await client.get("/api/secrets")).json()
    assert names == {"custom_secrets": [{"name": "API_TOKEN", "description": "d"}]}
    assert "v1" not in json.dumps(names)
    renamed = await client.put("/api/secrets/API_TOKEN", json={"name": "TOKEN"})
    assert renamed.json() == {"message": "Secret updated successfully"}
    stored = _store_file(harness, "secrets.json")["custom_secrets"]
    assert stored == {"TOKEN": {"secret": "v1", "description": "d"}}
    missing = await client.delete("/api/secrets/NOPE")
    assert missing.status_code == 404
    assert missing.json() == {"error": "Secret with ID NOPE not found"}
    missing_put = await client.put("/api/secrets/NOPE", json={"name": "A"})
    assert missing_put.status_code == 404
    deleted = await client.delete("/api/secrets/TOKEN")
    assert deleted.json() == {"message": "Secret deleted successfully"}
    assert (await client.get("/api/secrets")).json() == {"custom_secrets": []}
