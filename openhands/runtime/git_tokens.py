"""Git provider tokens in the runtime: their two shapes, and exporting fresh ones.

Callers hold tokens either as the reference's ``ProviderType -> ProviderToken`` map (what
the server's secrets and ``get_provider_tokens`` give; it keeps a self-hosted ``host``) or
as the sandbox's plain ``{"github": "<token>"}``. ``typed_provider_tokens`` and
``token_strings`` convert between them; every other module goes through these two.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Protocol, TypeAlias

from pydantic import SecretStr

from openhands.integrations.provider import PROVIDER_TOKEN_TYPE, ProviderHandler, ProviderToken
from openhands.integrations.service_types import ProviderType

if TYPE_CHECKING:
    from openhands.events.action import Action
    from openhands.events.stream import EventStream

logger = logging.getLogger(__name__)

# Tokens in either shape; keys may be ProviderTypes or their names ("github").
AnyProviderTokens: TypeAlias = (
    "PROVIDER_TOKEN_TYPE | Mapping[ProviderType, ProviderToken] | Mapping[str, str]"
)


def typed_provider_tokens(tokens: AnyProviderTokens | None) -> PROVIDER_TOKEN_TYPE:
    """The reference's read-only ``ProviderType -> ProviderToken`` map of ``tokens``.

    ProviderTokens (and their hosts) pass unchanged; a plain string becomes a token; an
    unknown provider name is dropped with a warning (naming the provider, never the value).
    """
    by_type: dict[ProviderType, ProviderToken] = {}
    for provider, token in (tokens or {}).items():
        try:
            kind = ProviderType(str(getattr(provider, "value", provider)).lower())
        except ValueError:
            logger.warning("Ignoring the token of unknown git provider %r", provider)
            continue
        if isinstance(token, ProviderToken):
            by_type[kind] = token
        elif isinstance(token, str) and token:
            by_type[kind] = ProviderToken(token=SecretStr(token))
    return MappingProxyType(by_type)


def token_strings(tokens: AnyProviderTokens | None) -> dict[str, str]:
    """``{"github": "<token>"}`` for the providers of ``tokens`` that carry a value."""
    strings: dict[str, str] = {}
    for provider, token in typed_provider_tokens(tokens).items():
        secret = token.token.get_secret_value() if token.token is not None else ""
        if secret:
            strings[provider.value] = secret
    return strings


def has_any_token(tokens: AnyProviderTokens | None) -> bool:
    return bool(token_strings(tokens))


class TokenSandbox(Protocol):
    """What exporting tokens needs of a runtime."""

    sid: str
    user_id: str | None
    session_api_key: str | None
    event_stream: EventStream

    def add_env_vars(self, env_vars: dict[str, str]) -> None: ...


async def export_latest_tokens(
    sandbox: TokenSandbox, tokens: PROVIDER_TOKEN_TYPE, event: Action
) -> None:
    """Before a command that names a provider's token variable (``$GITHUB_TOKEN`` …), put
    the provider's latest token in the sandbox's shell and among the stream's secrets (so
    its value is masked in what the command prints). Nothing when the command names none
    or there is no token; a failure is logged (by kind only) and the command still runs.
    """
    providers = ProviderHandler.check_cmd_action_for_provider_token_ref(event)
    if not providers or not tokens:
        return
    handler = ProviderHandler(
        provider_tokens=tokens,
        external_auth_id=sandbox.user_id,
        external_token_manager=True,
        session_api_key=sandbox.session_api_key,
        sid=sandbox.sid,
    )
    try:
        env = await handler.get_env_vars(providers=providers, expose_secrets=False, get_latest=True)
        if not env:
            return
        latest = {p: v for p, v in env.items() if isinstance(p, ProviderType)}
        exposed = ProviderHandler.expose_env_vars(
            {p: v for p, v in latest.items() if isinstance(v, SecretStr)}
        )
        # Added to (not replacing) the stream's secrets: the user's own stay masked too.
        sandbox.event_stream.update_secrets(exposed)
        sandbox.add_env_vars(exposed)
    except Exception as e:
        logger.error(
            "Could not export the latest git provider tokens to runtime %s: %s",
            sandbox.sid,
            type(e).__name__,
        )
