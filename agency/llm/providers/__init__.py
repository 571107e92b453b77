"""LLM provider clients over httpx, one per wire protocol."""

from __future__ import annotations

import httpx

from agency.llm.errors import LlmConfigError
from agency.llm.providers.anthropic import AnthropicProvider
from agency.llm.providers.base import Provider, classify_status
from agency.llm.providers.ollama import OllamaProvider
from agency.llm.providers.openai import OpenAIProvider

PROVIDERS = {"openai": OpenAIProvider, "ollama": OllamaProvider, "anthropic": AnthropicProvider}


def make_providers(client: httpx.AsyncClient, timeout_s: float) -> dict[str, Provider]:
    return {name: cls(client, timeout_s) for name, cls in PROVIDERS.items()}


def provider_for(providers: dict[str, Provider], name: str) -> Provider:
    try:
        return providers[name]
    except KeyError:
        raise LlmConfigError(f"unknown provider {name!r} (known: {', '.join(sorted(providers))})") from None


__all__ = ["AnthropicProvider", "OllamaProvider", "OpenAIProvider", "PROVIDERS", "Provider", "classify_status",
           "make_providers", "provider_for"]
