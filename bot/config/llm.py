"""The `[llm]` config section is agency.llm.settings.LlmSettings itself (one schema; McbotConfig
uses it as the section's type). `LlmSection` is only an alias of it, kept for the callers that
still import this name (tests/unit/eval/); new code imports LlmSettings from agency.llm.settings.
"""

from __future__ import annotations

from agency.llm.settings import LlmSettings

LlmSection = LlmSettings  # an alias, not a copy: `LlmSection is LlmSettings`

__all__ = ["LlmSection", "LlmSettings"]
