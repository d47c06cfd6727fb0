"""The settings and secrets file stores: on-disk JSON, real values, mode 0600."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from types import SimpleNamespace

import pytest
from pydantic import SecretStr

from openhands.storage.data_models.settings import Settings
from openhands.storage.data_models.user_secrets import UserSecrets
from openhands.storage.local import LocalFileStore
from openhands.storage.memory import InMemoryFileStore
from openhands.storage.secrets.file_secrets_store import FileSecretsStore
from openhands.storage.settings.file_settings_store import FileSettingsStore


def _config(tmp_path: Path) -> SimpleNamespace:
    return SimpleNamespace(
        file_store="local",
        file_store_path=str(tmp_path),
        file_store_web_hook_url=None,
        file_store_web_hook_headers=None,
        file_store_web_hook_batch=False,
    )


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_settings_round_trip_with_clear_text_keys_and_mode_0600(tmp_path: Path) -> None:
    store = await FileSettingsStore.get_instance(_config(tmp_path), None)
    assert await store.load() is None

    settings = Settings(
        llm_model="anthropic/claude-sonnet-4-20250514",
        llm_api_key=SecretStr("sk-ant-secret"),
        search_api_key=SecretStr("tvly-secret"),
        sandbox_api_key=SecretStr("sbx-secret"),
        condenser_max_size=120,
        git_user_name="openhands",
    )
    await store.store(settings)

    path = tmp_path / "settings.json"
    assert _mode(path) == 0o600
    on_disk = json.loads(path.read_text())
    assert on_disk["llm_api_key"] == "sk-ant-secret"
    assert on_disk["search_api_key"] == "tvly-secret"
    assert on_disk["sandbox_api_key"] == "sbx-secret"
    assert on_disk["secrets_store"] == {"provider_tokens": {}}
    assert on_disk["condenser_max_size"] == 120
    assert list(on_disk)[:3] == ["language", "agent", "max_iterations"]

    # A fresh store (a restart) gets the real values back.
    reloaded = await FileSettingsStore.get_instance(_config(tmp_path), None)
    loaded = await reloaded.load()
    assert loaded == settings
    assert loaded is not None and "sk-ant-secret" not in repr(loaded)


async def test_settings_file_from_0_59_loads(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text(
        json.dumps(
            {
                "language": "en",
                "agent": "CodeActAgent",
                "llm_model": "openai/gpt-4o",
                "llm_api_key": "sk-old",
                "secrets_store": {"provider_tokens": {"github": {"token": "ghp_legacy"}}},
                "sandbox_api_key": "**********",
                "some_field_from_the_future": 1,
            }
        )
    )
    loaded = await FileSettingsStore(LocalFileStore(str(tmp_path))).load()
    assert loaded is not None
    assert loaded.llm_api_key is not None and loaded.llm_api_key.get_secret_value() == "sk-old"
    assert loaded.sandbox_api_key is None
    assert loaded.secrets_store.provider_hosts() == {"github": None}


async def test_storing_tightens_a_world_readable_settings_file(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text("{}")
    path.chmod(0o644)
    await FileSettingsStore(LocalFileStore(str(tmp_path))).store(
        Settings(llm_api_key=SecretStr("k"))
    )
    assert _mode(path) == 0o600


async def test_per_user_paths(tmp_path: Path) -> None:
    settings_store = await FileSettingsStore.get_instance(_config(tmp_path), "alice")
    secrets_store = await FileSecretsStore.get_instance(_config(tmp_path), "alice")
    await settings_store.store(Settings(language="en"))
    await secrets_store.store(UserSecrets().with_custom_secret("A", "1"))
    assert _mode(tmp_path / "users" / "alice" / "settings.json") == 0o600
    assert _mode(tmp_path / "users" / "alice" / "secrets.json") == 0o600
    assert not (tmp_path / "settings.json").exists()
    assert await (await FileSettingsStore.get_instance(_config(tmp_path), None)).load() is None
    with pytest.raises(ValueError):
        await FileSettingsStore.get_instance(_config(tmp_path), "../bob")


async def test_secrets_round_trip_with_exact_json_and_mode_0600(tmp_path: Path) -> None:
    store = await FileSecretsStore.get_instance(_config(tmp_path), None)
    assert await store.load() is None
    secrets = UserSecrets.model_validate(
        {
            "provider_tokens": {"github": {"token": "ghp_1", "host": "github.com"}},
            "custom_secrets": {"DB": {"secret": "pw", "description": "database"}},
        }
    )
    await store.store(secrets)

    path = tmp_path / "secrets.json"
    assert _mode(path) == 0o600
    assert json.loads(path.read_text()) == {
        "provider_tokens": {"github": {"token": "ghp_1", "host": "github.com", "user_id": None}},
        "custom_secrets": {"DB": {"secret": "pw", "description": "database"}},
    }
    assert await FileSecretsStore(LocalFileStore(str(tmp_path))).load() == secrets


async def test_stores_work_on_the_memory_store() -> None:
    file_store = InMemoryFileStore()
    await FileSettingsStore(file_store).store(Settings(llm_api_key=SecretStr("k")))
    await FileSecretsStore(file_store).store(UserSecrets().with_custom_secret("A", "1"))
    assert json.loads(file_store.files["settings.json"])["llm_api_key"] == "k"
    assert json.loads(file_store.files["secrets.json"])["custom_secrets"]["A"]["secret"] == "1"


async def test_corrupt_settings_file_is_an_error_not_a_reset(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text("{not json")
    with pytest.raises(ValueError):
        await FileSettingsStore(LocalFileStore(str(tmp_path))).load()
