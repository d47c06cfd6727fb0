"""``python -m openhands.runtime.remote_api --port P --engines URL,URL --redis URL
--api-key-file F`` (every option also reads an ``OH_RUNTIME_API_*`` variable)."""

from __future__ import annotations

import sys

import uvicorn

from openhands.runtime.remote_api.app import create_app
from openhands.runtime.remote_api.settings import parse_settings


def main(argv: list[str] | None = None) -> int:
    settings = parse_settings(argv)
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, log_level="info")
    return 0


if __name__ == "__main__":
    sys.exit(main())
