"""Who is calling: the UserAuth seam, the single-user default and the JWT multi-user mode."""

from openhands.server.user_auth.default_user_auth import DefaultUserAuth
from openhands.server.user_auth.jwt_user_auth import JwtUserAuth, create_user_token
from openhands.server.user_auth.user_auth import AuthType, UserAuth, UserAuthFactory

__all__ = [
    "AuthType",
    "DefaultUserAuth",
    "JwtUserAuth",
    "UserAuth",
    "UserAuthFactory",
    "create_user_token",
]
