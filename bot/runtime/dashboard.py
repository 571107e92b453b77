"""The dashboard's page, served by the daemon at `/` beside the API (bot/runtime/static/).

Plain HTML, CSS and JavaScript: no build step. The shell holds no data, so it is served
without the API token; everything it shows comes from the token-guarded API (the page
sends the token it is given in its address, `/#token=...`, as `Authorization: Bearer`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse

STATIC = Path(__file__).parent / "static"
FILES = {
    "/": ("dashboard.html", "text/html"),
    "/dashboard/app.js": ("dashboard.js", "text/javascript"),
    "/dashboard/style.css": ("dashboard.css", "text/css"),
}
PUBLIC_PATHS = frozenset(FILES)


def _server(name: str, media_type: str) -> Callable[[], FileResponse]:
    def serve() -> FileResponse:
        return FileResponse(STATIC / name, media_type=media_type, headers={"cache-control": "no-cache"})

    return serve


def add_dashboard_routes(app: FastAPI) -> None:
    for path, (name, media_type) in FILES.items():
        app.add_api_route(path, _server(name, media_type), methods=["GET"], include_in_schema=False)
