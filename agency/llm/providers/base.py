"""What a provider is, and how an HTTP failure is classified (docs/contracts.md LLM-12).

A provider turns an LlmRequest into one HTTP call and the reply into an LlmResponse, or
raises a classified ProviderError. It never retries: rotation.py owns retries and cycling.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Mapping
from typing import Any, Protocol

import httpx

from agency.llm.errors import ProviderError
from agency.llm.messages import LlmRequest, LlmResponse
from agency.llm.settings import TargetConfig

_QUOTA_HINTS = ("insufficient_quota", "quota", "billing", "credit balance")


class Provider(Protocol):
    name: str

    async def complete(self, request: LlmRequest, target: TargetConfig) -> LlmResponse: ...


def retry_after_seconds(value: str | None, now_s: float | None = None) -> float | None:
    """Retry-After is either delta-seconds or an HTTP date."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, when - (time.time() if now_s is None else now_s))


def classify_status(status: int, body: str, headers: Mapping[str, str]) -> ProviderError:
    text = body[:500]
    lowered = text.lower()
    if status in (401, 403):
        return ProviderError("auth", text or "unauthorized", status=status)
    if status == 402 or (status in (400, 429) and any(h in lowered for h in _QUOTA_HINTS)):
        return ProviderError("quota", text or "quota exceeded", status=status)
    if status == 429:
        return ProviderError(
            "rate_limit",
            text or "rate limited",
            status=status,
            retry_after_s=retry_after_seconds(headers.get("retry-after")),
        )
    if status in (408, 504):
        return ProviderError("timeout", text or "gateway timeout", status=status)
    # 4xx (model not found, bad request) and 5xx: this target cannot answer; try the next.
    return ProviderError("model", text or f"HTTP {status}", status=status)


async def post_json(
    client: httpx.AsyncClient, url: str, body: dict[str, Any], headers: Mapping[str, str], timeout_s: float
) -> dict[str, Any]:
    try:
        resp = await client.post(url, json=body, headers=dict(headers), timeout=timeout_s)
    except httpx.TimeoutException as e:
        raise ProviderError("timeout", f"{type(e).__name__}: {e}") from None
    except httpx.HTTPError as e:  # connection refused, reset, DNS...
        raise ProviderError("network", f"{type(e).__name__}: {e}") from None
    if resp.status_code >= 400:
        raise classify_status(resp.status_code, resp.text, resp.headers)
    try:
        data = resp.json()
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ProviderError("invalid_response", f"response is not JSON: {e}; body starts {resp.text[:120]!r}") from None
    if not isinstance(data, dict):
        raise ProviderError("invalid_response", f"response is {type(data).__name__}, not an object")
    return data


def dump_args(arguments: Any) -> str:
    """Tool arguments as text: OpenAI sends a JSON string, Ollama and Anthropic an object."""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)


def load_args_obj(arguments: str) -> Any:
    """For providers that want an object back in history: best effort, raw text kept on failure."""
    try:
        return json.loads(arguments) if arguments else {}
    except json.JSONDecodeError:
        return {"_raw": arguments}
