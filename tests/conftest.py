"""Settings for the whole suite (kept small: fixtures live next to the tests that use them)."""

import os

# LiteLLM would otherwise try to download its model price map at import time (no internet).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# Never let a developer's own config.toml or LLM key leak into tests.
os.environ.setdefault("OPENHANDS_TEST", "1")
