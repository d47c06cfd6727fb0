"""FastAPI application factory."""

from fastapi import FastAPI


def create_app() -> FastAPI:
    app = FastAPI(title="OpenHands", version="0.59.0")

    @app.get("/alive")
    async def alive() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/health")
    async def health() -> str:
        return "OK"

    return app
