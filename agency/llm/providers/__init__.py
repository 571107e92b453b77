"""LLM provider clients over httpx, one per wire protocol."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import httpx

from agency.llm.errors import LlmConfigError
from agency.llm.providers.anthropic import AnthropicProvider
from agency.llm.providers.base import Provider, classify_status
from agency.llm.providers.ollama import OllamaProvider
from agency.llm.providers.openai import OpenAIProvider

# Each provider class is built from the shared client and the timeout.
PROVIDERS: dict[str, Callable[[httpx.AsyncClient, float], Provider]] = {
    "openai": OpenAIProvider,
    "ollama": OllamaProvider,
    "anthropic": AnthropicProvider,
}


def make_providers(client: httpx.AsyncClient, timeout_s: float) -> dict[str, Provider]:
    return {name: cls(client, timeout_s) for name, cls in PROVIDERS.items()}


@asynccontextmanager
async def open_providers(
    timeout_s: float, given: dict[str, Provider] | None = None
) -> AsyncIterator[dict[str, Provider]]:
    """The given providers, or one per wire protocol on an HTTP client open for the block:
    callers outside agency.llm never hold an HTTP client themselves."""
    if given:
        yield given
        return
    async with httpx.AsyncClient() as client:
        yield make_providers(client, timeout_s)


def provider_for(providers: dict[str, Provider], name: str) -> Provider:
    try:
        return providers[name]
    except KeyError:
        raise LlmConfigError(f"unknown provider {name!r} (known: {', '.join(sorted(providers))})") from None


__all__ = [
    "PROVIDERS",
    "AnthropicProvider",
    "OllamaProvider",
    "OpenAIProvider",
    "Provider",
    "classify_status",
    "make_providers",
    "open_providers",
    "provider_for",
]
