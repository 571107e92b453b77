"""How the routes write what they answer: stored models as JSON, server-sent events."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import Response
from fastapi.responses import StreamingResponse
from pydantic import BaseModel


def dump(obj: Any) -> Any:
    return obj.model_dump(mode="json", exclude_none=True) if hasattr(obj, "model_dump") else obj


def json_of(model: BaseModel) -> Response:
    """pydantic's own JSON: FastAPI would walk the dumped dict again (jsonable_encoder), a
    millisecond for a snapshot of a fleet's bot with its twenty neighbours in view."""
    return Response(model.model_dump_json(), media_type="application/json")


def sse(event: str, data: Any, event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def event_stream(events: AsyncIterator[str]) -> StreamingResponse:
    """Server-sent events that no proxy buffers or caches."""
    return StreamingResponse(
        events, media_type="text/event-stream", headers={"cache-control": "no-cache", "x-accel-buffering": "no"}
    )
