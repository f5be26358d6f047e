"""`python -m app` (what `make serve` runs): serve the station on the configured address."""

from __future__ import annotations

import uvicorn

from app.config import get_settings


def main() -> None:
    settings = get_settings()
    print(f"Station 08 · Speculative decoding: http://{settings.host}:{settings.port}/", flush=True)
    uvicorn.run(
        "app.main:create_app",
        factory=True,
        host=settings.host,
        port=settings.port,
        log_level="info",
    )


if __name__ == "__main__":
    main()
