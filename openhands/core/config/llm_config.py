"""Settings for one LLM: the `[llm]` section of config.toml and its named `[llm.<name>]` variants."""

from __future__ import annotations

import os
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from openhands.core.config.config_utils import Secret
from openhands.core.logger import LOG_DIR, openhands_logger

DEFAULT_LLM_SECTION = "llm"
AZURE_DEFAULT_API_VERSION = "2024-12-01-preview"


class LLMConfig(BaseModel):
    """How to reach and call one model. Secrets are SecretStr and never printed."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    model: str = Field(default="claude-sonnet-4-20250514", description="LiteLLM model string.")
    api_key: Secret | None = Field(default=None, description="Provider API key.")
    base_url: str | None = Field(default=None, description="Custom API base URL.")
    api_version: str | None = Field(default=None, description="API version (Azure).")
    aws_access_key_id: Secret | None = Field(default=None, description="AWS key id (Bedrock).")
    aws_secret_access_key: Secret | None = Field(
        default=None, description="AWS secret access key (Bedrock)."
    )
    aws_region_name: str | None = Field(default=None, description="AWS region (Bedrock).")
    openrouter_site_url: str = Field(default="https://docs.all-hands.dev/")
    openrouter_app_name: str = Field(default="OpenHands")
    num_retries: int = Field(default=5, description="Total attempts, including the first.")
    retry_multiplier: float = Field(default=8, description="Exponential backoff multiplier.")
    retry_min_wait: int = Field(default=8, description="Shortest wait between retries (s).")
    retry_max_wait: int = Field(default=64, description="Longest wait between retries (s).")
    timeout: int | None = Field(default=None, description="Per-call timeout (s).")
    max_message_chars: int = Field(
        default=30_000, description="Observation text longer than this is truncated."
    )
    temperature: float = Field(default=0.0)
    top_p: float | None = Field(default=1.0)
    top_k: float | None = Field(default=None)
    custom_llm_provider: str | None = Field(default=None)
    max_input_tokens: int | None = Field(default=None, description="None: from model info.")
    max_output_tokens: int | None = Field(default=None, description="None: from model info.")
    input_cost_per_token: float | None = Field(default=None)
    output_cost_per_token: float | None = Field(default=None)
    ollama_base_url: str | None = Field(default=None)
    drop_params: bool = Field(default=True, description="Let LiteLLM drop unsupported params.")
    modify_params: bool = Field(default=True, description="Let LiteLLM adapt messages.")
    disable_vision: bool | None = Field(default=None)
    disable_stop_word: bool | None = Field(default=False)
    caching_prompt: bool = Field(default=True, description="Use prompt caching if supported.")
    log_completions: bool = Field(default=False)
    log_completions_folder: str = Field(default=os.path.join(LOG_DIR, "completions"))
    custom_tokenizer: str | None = Field(default=None)
    native_tool_calling: bool | None = Field(default=None, description="None: auto-detect.")
    reasoning_effort: str | None = Field(default=None)
    seed: int | None = Field(default=None)
    safety_settings: list[dict[str, str]] | None = Field(
        default=None, description="Sent only to Mistral and Gemini models."
    )
    for_routing: bool = Field(default=False, description="A model for the router to pick.")

    def model_post_init(self, __context: Any) -> None:
        self._apply_derived_defaults()

    def _apply_derived_defaults(self) -> None:
        # Derived values go straight into __dict__ so they stay out of `model_fields_set`:
        # only what the user gave counts as explicit (see `refresh_derived_defaults`).
        if self.model.startswith("azure") and self.api_version is None:
            self.__dict__["api_version"] = AZURE_DEFAULT_API_VERSION
        if self.reasoning_effort is None and "gemini-2.5-pro" not in self.model:
            self.__dict__["reasoning_effort"] = "high"
        self.__dict__["log_completions_folder"] = os.path.abspath(self.log_completions_folder)
        self._export_provider_env()

    def _export_provider_env(self) -> None:
        # LiteLLM reads these from the environment rather than from call arguments.
        os.environ["OR_SITE_URL"] = self.openrouter_site_url
        os.environ["OR_APP_NAME"] = self.openrouter_app_name
        if self.aws_access_key_id is not None:
            os.environ["AWS_ACCESS_KEY_ID"] = self.aws_access_key_id.get_secret_value()
        if self.aws_secret_access_key is not None:
            os.environ["AWS_SECRET_ACCESS_KEY"] = self.aws_secret_access_key.get_secret_value()
        if self.aws_region_name is not None:
            os.environ["AWS_REGION_NAME"] = self.aws_region_name

    def refresh_derived_defaults(self) -> None:
        """Recompute derived values after fields were assigned (e.g. `model` from env)."""
        explicit = {name: getattr(self, name) for name in self.model_fields_set}
        fresh = type(self).model_validate(explicit)
        for name in type(self).model_fields:
            self.__dict__[name] = fresh.__dict__[name]

    @classmethod
    def from_toml_section(cls, data: dict[str, Any]) -> dict[str, LLMConfig]:
        """Build the base config (key `llm`) and every named sub-table merged over it.

        An invalid base falls back to the defaults; an invalid named section is skipped.
        """
        base_data = {k: v for k, v in data.items() if not isinstance(v, dict)}
        try:
            base = cls.model_validate(base_data)
        except ValidationError as exc:
            openhands_logger.warning(
                "Cannot parse [llm] config from toml. Continuing with defaults. Error: %s", exc
            )
            base = cls()
            base_data = {}
        configs: dict[str, LLMConfig] = {DEFAULT_LLM_SECTION: base}
        for name, overrides in data.items():
            if not isinstance(overrides, dict):
                continue
            try:
                configs[name] = cls.model_validate({**base_data, **overrides})
            except ValidationError as exc:
                openhands_logger.warning(
                    "Cannot parse [llm.%s] config from toml. This section will be skipped. Error: %s",
                    name,
                    exc,
                )
        return configs
