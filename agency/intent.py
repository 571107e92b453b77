"""INTENT extraction (docs/contracts.md INTENT-1..4): final-line pass, then inline pass.

The INTENT token is always removed from the text, whatever its label, so an arbitrary
label can never leak into titles or goal keys. Only labels in VALID_INTENTS become a
non-null intent (fail closed). Line structure is preserved (INTENT-2): the inline
pattern only eats horizontal whitespace, `[^\\S\\n]`, never a newline.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

VALID_INTENTS: frozenset[str] = frozenset({"none", "explore", "gather", "craft", "shelter", "food", "mine", "navigate"})

IntentParse = Literal["final_line", "inline_noncompliant"]

INTENT_TOKEN = "INTENT:"

# 'INTENT:' plus the label word after it. No nested quantifiers and the token is a
# literal, so matching is linear. The label is `\S*` (greedy up to whitespace): whatever
# follows a removal starts with whitespace or ends the text, so a removal can never glue
# two fragments into a new 'INTENT:' token.
_INLINE = re.compile(r"[^\S\n]*INTENT:[^\S\n]*(\S*)", re.IGNORECASE)

_LABEL_PUNCT = ".,;:!?\"'`*()[]<>"
_MARKUP = "*_#>- \t"


class IntentResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    intent: str | None
    intent_parse: IntentParse | None


def _label(raw: str) -> str | None:
    """The allowlisted label for raw, or None for anything unknown."""
    word = raw.strip(_LABEL_PUNCT).lower()
    return word if word in VALID_INTENTS else None


def _final_line(text: str) -> tuple[str, str | None] | None:
    """If the last non-empty line is an INTENT line, return (text without it, label)."""
    end = len(text.rstrip())
    if end == 0:
        return None
    line_start = text.rfind("\n", 0, end) + 1
    line = text[line_start:end].strip().lstrip(_MARKUP)  # tolerate "- INTENT:", "**INTENT:**"
    if line[: len(INTENT_TOKEN)].upper() != INTENT_TOKEN:
        return None
    rest = line[len(INTENT_TOKEN) :].lstrip(_MARKUP).split()
    label = _label(rest[0]) if rest else None
    # Drop the line and the newline before it; trailing blank lines go too.
    return text[: max(line_start - 1, 0)], label


def strip_inline_intent(text: str) -> tuple[str, str | None, bool]:
    """Remove every inline INTENT token. Returns (text, first label, found any)."""
    first: list[str | None] = []

    def repl(m: re.Match[str]) -> str:
        if not first:
            first.append(_label(m.group(1)))
        return ""

    out = _INLINE.sub(repl, text)
    return out, (first[0] if first else None), bool(first)


def extract_intent(text: str) -> IntentResult:
    final = _final_line(text)
    if final is not None:
        body, label = final
        # Hygiene: a compliant final line does not excuse stray inline tokens.
        body, _, _ = strip_inline_intent(body)
        return IntentResult(text=body, intent=label, intent_parse="final_line")
    body, label, found = strip_inline_intent(text)
    if found:
        return IntentResult(text=body, intent=label, intent_parse="inline_noncompliant")
    return IntentResult(text=text, intent=None, intent_parse=None)
