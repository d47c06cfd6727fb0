"""The HTTP plumbing every provider service shares.

``HTTPClient`` is the base the GitHub, GitLab and Bitbucket services inherit: it sends a
request with the service's headers, retries once with a fresh token when the service
refreshes tokens, and turns the providers' failures into the errors of ``service_types``
(401 → ``AuthenticationError``, 404 → ``ResourceNotFoundError``, 429 → ``RateLimitError``,
anything else → ``UnknownException``), in this one place.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

from openhands.integrations.service_types import (
    AuthenticationError,
    RateLimitError,
    RequestMethod,
    ResourceNotFoundError,
    UnknownException,
)

if TYPE_CHECKING:
    import httpx

DEFAULT_TIMEOUT_SECONDS = 15.0
# Errors the messages may quote, at most this many characters of the provider's reason.
MAX_REASON_CHARS = 500


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


def header_value(headers: Mapping[str, str], name: str) -> str:
    """A response header by case-insensitive name ("" when absent): ``_make_request`` hands
    back the headers as the provider sent them, and providers differ in their case."""
    wanted = name.lower()
    for key, value in headers.items():
        if key.lower() == wanted:
            return str(value)
    return ""


def has_next_page(headers: Mapping[str, str]) -> bool:
    """Whether an RFC 8288 ``Link`` header names a ``rel="next"`` page."""
    return 'rel="next"' in header_value(headers, "link")


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
            return reason[:MAX_REASON_CHARS]
    if body is not None:
        return str(body)[:MAX_REASON_CHARS]
    return text[:MAX_REASON_CHARS] or "no details"


class HTTPClient(ABC):
    """The base of the provider services: ``_make_request`` against the provider's API.

    A service supplies ``provider`` (``"github"``, …), ``_get_headers`` and
    ``get_latest_token``; it sets ``refresh`` when ``get_latest_token`` can fetch a new
    token (an external token manager), and then a 401 is retried once with that token.
    """

    token: SecretStr = SecretStr("")
    refresh: bool = False
    external_auth_id: str | None = None
    external_auth_token: SecretStr | None = None
    external_token_manager: bool = False
    base_domain: str | None = None

    @property
    @abstractmethod
    def provider(self) -> str:
        """The provider's id, as in ``ProviderType`` (``"github"``)."""

    @property
    def provider_name(self) -> str:
        """How messages name the provider; the services say "GitHub" rather than "github"."""
        return self.provider

    @abstractmethod
    async def get_latest_token(self) -> SecretStr | None:
        """The token to use now (a token manager may hand out a fresh one)."""

    @abstractmethod
    async def _get_headers(self) -> dict[str, Any]:
        """The headers of every request: authorization and the API version."""

    def _has_token_expired(self, status_code: int) -> bool:
        return status_code == 401

    async def execute_request(
        self,
        client: httpx.AsyncClient,
        url: str,
        headers: dict[str, Any],
        params: dict[str, Any] | None,
        method: RequestMethod = RequestMethod.GET,
    ) -> httpx.Response:
        """One request: POST sends ``params`` as the JSON body, GET as the query."""
        if method is RequestMethod.POST:
            return await client.post(url, headers=headers, json=params)
        return await client.get(url, headers=headers, params=params)

    async def _send(
        self,
        url: str,
        params: dict[str, Any] | None = None,
        method: RequestMethod = RequestMethod.GET,
    ) -> httpx.Response:
        """The successful response to one request, or the error it translates to."""
        import httpx  # not needed until a provider is called

        try:
            async with httpx.AsyncClient(timeout=DEFAULT_TIMEOUT_SECONDS) as client:
                headers = await self._get_headers()
                response = await self.execute_request(client, url, headers, params, method)
                if self.refresh and self._has_token_expired(response.status_code):
                    latest = await self.get_latest_token()
                    if latest:
                        self.token = latest
                    headers = await self._get_headers()
                    response = await self.execute_request(client, url, headers, params, method)
                response.raise_for_status()
                return response
        except httpx.HTTPStatusError as error:
            raise self.handle_http_status_error(error) from error
        except httpx.HTTPError as error:
            raise self.handle_http_error(error) from error
        except (httpx.InvalidURL, UnicodeError) as error:
            # A host that makes no URL, or a header value HTTP cannot carry. The error's
            # text is not repeated: it may quote the token.
            raise UnknownException(
                f"Could not send a request to {self.provider_name}: {type(error).__name__}"
            ) from error

    async def _make_request(
        self,
        url: str,
        params: dict[str, Any] | None = None,
        method: RequestMethod = RequestMethod.GET,
    ) -> tuple[Any, Mapping[str, str]]:
        """The decoded body (JSON when the provider says so, else text) and the response
        headers (look them up with ``header_value``: names are case-insensitive)."""
        import httpx

        response = await self._send(url, params, method)
        # A copy, so the caller holds plain data rather than the response.
        headers = httpx.Headers(response.headers)
        if "json" in headers.get("content-type", ""):
            try:
                return response.json(), headers
            except ValueError as error:
                raise UnknownException(f"{self.provider_name} sent invalid JSON") from error
        return response.text, headers

    def handle_http_status_error(
        self, e: httpx.HTTPStatusError
    ) -> AuthenticationError | RateLimitError | ResourceNotFoundError | UnknownException:
        """The error a failed status becomes. The message starts with what went wrong
        and goes on with the status and the provider's own reason:
        ``Invalid github token: GitHub refused the request (401): Bad credentials``."""
        status = e.response.status_code
        reason = _reason(e.response)
        if status >= 500:
            return UnknownException(
                f"Unknown error: {self.provider_name} failed to answer ({status}): {reason}"
            )
        detail = f"{self.provider_name} refused the request ({status}): {reason}"
        if status == 401:
            return AuthenticationError(f"Invalid {self.provider} token: {detail}")
        if status == 404:
            return ResourceNotFoundError(f"Resource not found on {self.provider} API: {detail}")
        if status == 429:
            return RateLimitError(f"{self.provider} API rate limit exceeded: {detail}")
        return UnknownException(detail)

    def handle_http_error(self, e: httpx.HTTPError) -> UnknownException:
        """A request that got no answer (connection refused, timeout, …)."""
        return UnknownException(
            f"Could not reach {self.provider_name} (HTTP error {type(e).__name__}): {e}"
        )


def _reason(response: Any) -> str:
    try:
        body = response.json()
    except ValueError:
        body = None
    return error_reason(body, str(response.text))
