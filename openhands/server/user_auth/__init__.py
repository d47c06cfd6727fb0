"""Who is calling: the UserAuth seam, the single-user default and the JWT multi-user mode.

The names are resolved on first use, so importing the package (the single-user server
does) does not load PyJWT.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
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
