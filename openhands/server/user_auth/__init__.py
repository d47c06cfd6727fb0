"""Who is calling: the UserAuth seam, the single-user default and the JWT multi-user mode,
and the reference's request helpers (``get_user_auth``, ``get_user_id``, … of
``request_auth.py``).

The names are resolved on first use, so importing the package (the single-user server
does) does not load PyJWT.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_HELPERS = "openhands.server.user_auth.request_auth"
_EXPORTS = {
    "get_user_auth": _HELPERS,
    "get_provider_tokens": _HELPERS,
    "get_access_token": _HELPERS,
    "get_user_id": _HELPERS,
    "get_user_settings": _HELPERS,
    "get_secrets_store": _HELPERS,
    "get_user_secrets": _HELPERS,
    "get_user_settings_store": _HELPERS,
    "get_auth_type": _HELPERS,
    "AuthType": "openhands.server.user_auth.user_auth",
    "DefaultUserAuth": "openhands.server.user_auth.default_user_auth",
    "JwtUserAuth": "openhands.server.user_auth.jwt_user_auth",
    "UserAuth": "openhands.server.user_auth.user_auth",
    "UserAuthFactory": "openhands.server.user_auth.user_auth",
    "create_user_token": "openhands.server.user_auth.jwt_user_auth",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(module), name)
