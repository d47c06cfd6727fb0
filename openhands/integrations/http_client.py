"""The HTTP plumbing the provider services share: one request helper that turns the
providers' failures into the errors of ``service_types``, in one place."""

from __future__ import annotations

import os
from abc import abstractmethod
from typing import Any

from pydantic import SecretStr

from openhands.integrations.service_types import (
    AuthenticationError,
    RateLimitError,
    RequestMethod,
    ResourceNotFoundError,
    UnknownException,
)

DEFAULT_TIMEOUT_SECONDS = 15.0


def api_base_url(
    base_domain: str | None,
    env_var: str,
    default_url: str,
    default_domains: tuple[str, ...],
    api_path: str,
    api_url: str | None = None,
) -> str:
    """The REST root a service talks to.

    A custom ``base_domain`` (a self-hosted provider) gives ``https://<domain><api_path>``;
    a domain written with a scheme (``http://127.0.0.1:8000``) keeps it, which is also how
    tests aim a service at a stand-in server. Otherwise the public API's root: ``api_url``
    when the caller gives one (the web server's configured root), else the environment
    variable ``env_var``, else ``default_url``.
    """
    domain = (base_domain or "").strip().rstrip("/")
    if domain and domain not in default_domains:
        root = domain if domain.startswith(("http://", "https://")) else f"https://{domain}"
        return f"{root}{api_path}"
    return (api_url or os.environ.get(env_var) or default_url).rstrip("/")


def error_reason(body: object, text: str) -> str:
    """The provider's own words from an error answer (``body`` decoded JSON or None): its
    ``message``/``error``/``errors`` (GitHub adds details under ``errors``, Bitbucket
    nests ``{"error": {"message": …}}``), else the start of the raw ``text``."""
    if isinstance(body, dict):
        for key in ("message", "error", "errors"):
            value = body.get(key)
            if not value:
                continue
            if isinstance(value, dict):
                value = value.get("message", value)
            reason = str(value)
            if key == "message" and body.get("errors"):
                reason += f" {body['errors']}"
            return reason[:500]
    if body is not None:
        return str(body)[:500]
    return text[:500] or "no details"


class HTTPClient:
    """Mixin: ``_make_request`` against ``self.BASE_URL`` with ``_get_headers()``."""

    BASE_URL: str
    token: SecretStr | None
    provider_name: str = "provider"

    @abstractmethod
    async def _get_headers(self) -> dict[str, str]: ...

    async def _make_request(
        self,
        url: str,
        params: dict[str, Any] | None = None,
        method: RequestMethod = RequestMethod.GET,
    ) -> tuple[Any, dict[str, str]]:
        """The decoded body (JSON, else text) and the response headers (lower-case names).

        401 → ``AuthenticationError``, 404 → ``ResourceNotFoundError``, 429 →
        ``RateLimitError``, any other failure (other statuses, no answer, a URL or header
        that cannot be sent) → ``UnknownException``. The messages name the status and the
        provider's reason: ``GitHub refused the request (422): Validation Failed``.
        """
        import httpx  # not needed until a provider is called

        headers = await self._get_headers()
        try:
            async with httpx.AsyncClient(timeout=DEFAULT_TIMEOUT_SECONDS) as client:
                if method is RequestMethod.POST:
                    response = await client.post(url, json=params, headers=headers)
                else:
                    response = await client.get(url, params=params, headers=headers)
        except httpx.HTTPError as error:
            raise UnknownException(f"Could not reach {self.provider_name}: {error}") from error
        except (httpx.InvalidURL, UnicodeError) as error:
            # A host that makes no URL, or a header value HTTP cannot carry. The error's
            # text is not repeated: it may quote the token.
            raise UnknownException(
                f"Could not send a request to {self.provider_name}: {type(error).__name__}"
            ) from error
        status = response.status_code
        if status >= 400:
            raise _status_error(self.provider_name, status, _reason(response))
        response_headers = {key.lower(): value for key, value in response.headers.items()}
        if "json" in response_headers.get("content-type", ""):
            try:
                return response.json(), response_headers
            except ValueError as error:
                raise UnknownException(f"{self.provider_name} sent invalid JSON") from error
        return response.text, response_headers

    def _token_value(self) -> str:
        return self.token.get_secret_value() if self.token else ""


def _reason(response: Any) -> str:
    try:
        body = response.json()
    except ValueError:
        body = None
    return error_reason(body, str(response.text))


def _status_error(
    provider: str, status: int, reason: str
) -> AuthenticationError | ResourceNotFoundError | RateLimitError | UnknownException:
    if status >= 500:
        return UnknownException(f"{provider} failed to answer ({status}): {reason}")
    message = f"{provider} refused the request ({status}): {reason}"
    if status == 401:
        return AuthenticationError(message)
    if status == 404:
        return ResourceNotFoundError(message)
    if status == 429:
        return RateLimitError(message)
    return UnknownException(message)
