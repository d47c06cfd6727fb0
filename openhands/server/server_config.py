"""Server-level settings that are not part of config.toml: app mode, keys, CORS, limits,
and the extension points (dotted class paths, server-api: python-api §6.2).

Read once from the environment by :meth:`ServerConfig.from_env`; tests build one directly.
``load_server_config()`` is what the app uses: it honours ``OPENHANDS_CONFIG_CLS`` (a
``ServerConfig`` subclass, e.g. one that names other store classes) and verifies the result.
The reference path ``openhands.server.config.server_config`` re-exports both names.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from openhands.server.types import AppMode, ServerConfigInterface

UserAuthMode = Literal["single", "jwt"]

DEFAULT_SETTINGS_STORE = "openhands.storage.settings.file_settings_store.FileSettingsStore"
DEFAULT_SECRET_STORE = "openhands.storage.secrets.file_secrets_store.FileSecretsStore"
DEFAULT_CONVERSATION_STORE = (
    "openhands.storage.conversation.file_conversation_store.FileConversationStore"
)
DEFAULT_CONVERSATION_MANAGER = (
    "openhands.server.conversation_manager.standalone_conversation_manager."
    "StandaloneConversationManager"
)
DEFAULT_MONITORING_LISTENER = "openhands.server.monitoring.MonitoringListener"
DEFAULT_USER_AUTH = "openhands.server.user_auth.default_user_auth.DefaultUserAuth"
_EXTENSION_FIELDS = (
    "settings_store_class",
    "secret_store_class",
    "conversation_store_class",
    "conversation_manager_class",
    "monitoring_listener_class",
    "user_auth_class",
)


# Environment variables that replace an extension point's class (a dotted path).
_ENV_CLASS_OVERRIDES = {
    "SETTINGS_STORE_CLASS": "settings_store_class",
    "SECRET_STORE_CLASS": "secret_store_class",
    "CONVERSATION_STORE_CLASS": "conversation_store_class",
    "CONVERSATION_MANAGER_CLASS": "conversation_manager_class",
}


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    value = env.get(name)
    if value is None or value.strip() == "":
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def _list(env: Mapping[str, str], name: str) -> list[str]:
    return [item.strip() for item in env.get(name, "").split(",") if item.strip()]


class ServerConfig(BaseModel, ServerConfigInterface):
    """How the web server behaves; the agent/runtime settings stay in OpenHandsConfig.

    The ``*_class`` fields are the extension points: dotted paths loaded with
    ``openhands.utils.import_utils.get_impl`` against their base class. A deployment
    changes them with a subclass whose field defaults differ, named by
    ``OPENHANDS_CONFIG_CLS``, or with the environment variables ``SETTINGS_STORE_CLASS``,
    ``SECRET_STORE_CLASS``, ``CONVERSATION_STORE_CLASS`` and ``CONVERSATION_MANAGER_CLASS``.
    """

    model_config = ConfigDict(extra="forbid")

    app_mode: AppMode = Field(default=AppMode.OSS, description="`oss` (default) or `saas`.")
    session_api_key: str | None = Field(
        default=None, description="When set, routes need X-Session-API-Key and sockets the query."
    )
    permitted_cors_origins: list[str] = Field(
        default_factory=list, description="Exact origins; empty means localhost/127.0.0.1 only."
    )
    serve_frontend: bool = Field(default=True, description="Mount the SPA build at `/`.")
    frontend_dir: str = Field(default="./frontend/build", description="The SPA build directory.")
    allow_set_conversation_id: bool = Field(
        default=False, description="Accept `conversation_id` on POST /api/conversations."
    )
    github_client_id: str = Field(default="", description="Echoed as GITHUB_CLIENT_ID.")
    posthog_client_key: str = Field(default="", description="Empty: the UI skips analytics.")
    enable_billing: bool = Field(default=False)
    hide_llm_settings: bool = Field(default=False)
    rate_limit_enabled: bool = Field(default=True, description="Per-IP request throttling.")
    rate_limit_exempt_loopback: bool = Field(
        default=False, description="Never throttle requests from 127.0.0.0/8 and ::1."
    )
    rate_limit_delay_after: int = Field(default=10, description="Requests per second before delay.")
    rate_limit_reject_after: int = Field(default=20, description="Requests per second before 429.")
    user_auth: UserAuthMode = Field(
        default="single", description="`single` (OSS, no login) or `jwt` (HS256 token per user)."
    )
    auth_cookie_name: str = Field(default="openhands_auth", description="Cookie holding the JWT.")
    github_api_url: str = Field(
        default="https://api.github.com", description="Base URL of the GitHub REST API."
    )
    gitlab_api_url: str = Field(
        default="https://gitlab.com/api/v4", description="Base URL of the GitLab REST API."
    )
    bitbucket_api_url: str = Field(
        default="https://api.bitbucket.org/2.0", description="Base URL of the Bitbucket API."
    )
    feedback_dir: str = Field(default="feedback", description="Store folder for feedback records.")
    cleanup_interval_seconds: float = Field(default=15.0, description="Cleanup task period.")
    max_upload_bytes: int = Field(default=4 * 1024 * 1024, description="Socket.IO message limit.")
    max_request_body_bytes: int = Field(
        default=4 * 1024 * 1024,
        description="Largest HTTP request body (413 above it); the same as a socket message.",
    )
    max_upload_body_bytes: int = Field(
        default=64 * 1024 * 1024, description="Largest `/upload-files` request body."
    )
    config_cls: str | None = Field(
        default=None, description="`OPENHANDS_CONFIG_CLS`: the ServerConfig class in use."
    )
    settings_store_class: str = Field(
        default=DEFAULT_SETTINGS_STORE, description="SettingsStore (env `SETTINGS_STORE_CLASS`)"
    )
    secret_store_class: str = Field(
        default=DEFAULT_SECRET_STORE, description="SecretsStore (env `SECRET_STORE_CLASS`)"
    )
    conversation_store_class: str = Field(
        default=DEFAULT_CONVERSATION_STORE,
        description="ConversationStore (env `CONVERSATION_STORE_CLASS`)",
    )
    conversation_manager_class: str = Field(
        default=DEFAULT_CONVERSATION_MANAGER,
        description="ConversationManager (env `CONVERSATION_MANAGER_CLASS`)",
    )
    monitoring_listener_class: str = Field(
        default=DEFAULT_MONITORING_LISTENER, description="MonitoringListener"
    )
    user_auth_class: str = Field(
        default=DEFAULT_USER_AUTH,
        description="UserAuth; the default follows `user_auth` (single user or JWT)",
    )

    def verify_config(self) -> None:
        for name in _EXTENSION_FIELDS:
            path = getattr(self, name)
            if "." not in path.strip("."):
                raise ValueError(f"{name} must be a dotted class path, got {path!r}")

    def get_config(self) -> dict[str, Any]:
        return {
            "APP_MODE": self.app_mode.value,
            "GITHUB_CLIENT_ID": self.github_client_id,
            "POSTHOG_CLIENT_KEY": self.posthog_client_key,
            "FEATURE_FLAGS": {
                "ENABLE_BILLING": self.enable_billing,
                "HIDE_LLM_SETTINGS": self.hide_llm_settings,
            },
        }

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ServerConfig:
        env = os.environ if env is None else env
        user_auth: UserAuthMode = "jwt" if env.get("OPENHANDS_USER_AUTH") == "jwt" else "single"
        overrides: dict[str, Any] = {
            field: env[name] for name, field in _ENV_CLASS_OVERRIDES.items() if env.get(name)
        }
        return cls(
            **overrides,
            config_cls=env.get("OPENHANDS_CONFIG_CLS") or None,
            app_mode=AppMode.SAAS if env.get("APP_MODE") == "saas" else AppMode.OSS,
            session_api_key=env.get("SESSION_API_KEY") or None,
            permitted_cors_origins=_list(env, "PERMITTED_CORS_ORIGINS"),
            serve_frontend=_flag(env, "SERVE_FRONTEND", True),
            frontend_dir=env.get("FRONTEND_DIR", "./frontend/build"),
            allow_set_conversation_id=env.get("ALLOW_SET_CONVERSATION_ID", "0") == "1",
            github_client_id=env.get("GITHUB_APP_CLIENT_ID", ""),
            posthog_client_key=env.get("POSTHOG_CLIENT_KEY", ""),
            enable_billing=env.get("ENABLE_BILLING", "false") == "true",
            hide_llm_settings=env.get("HIDE_LLM_SETTINGS", "false") == "true",
            rate_limit_enabled=_flag(env, "RATE_LIMIT_ENABLED", True),
            rate_limit_exempt_loopback=_flag(env, "RATE_LIMIT_EXEMPT_LOOPBACK", False),
            user_auth=user_auth,
            github_api_url=env.get("GITHUB_API_URL", "https://api.github.com").rstrip("/"),
            gitlab_api_url=env.get("GITLAB_API_URL", "https://gitlab.com/api/v4").rstrip("/"),
            bitbucket_api_url=env.get("BITBUCKET_API_URL", "https://api.bitbucket.org/2.0").rstrip(
                "/"
            ),
            max_request_body_bytes=int(
                env.get("MAX_REQUEST_BODY_BYTES")
                or cls.model_fields["max_request_body_bytes"].default
            ),
            max_upload_body_bytes=int(
                env.get("MAX_UPLOAD_BODY_BYTES")
                or cls.model_fields["max_upload_body_bytes"].default
            ),
        )


def load_server_config(env: Mapping[str, str] | None = None) -> ServerConfig:
    """The server config of this process: ``OPENHANDS_CONFIG_CLS`` (a ``ServerConfig``
    subclass, checked) or ``ServerConfig``, read from the environment and verified."""
    from openhands.utils.import_utils import get_impl

    env = os.environ if env is None else env
    config_cls = get_impl(ServerConfig, env.get("OPENHANDS_CONFIG_CLS") or None)
    server_config = config_cls.from_env(env)
    server_config.verify_config()
    return server_config
