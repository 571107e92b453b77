"""A chat line as the bot reads it: cleaned (colour and formatting codes, control characters
and surplus spaces gone, at most MAX_LINE characters: vanilla's limit), and whether it is
addressed to the bot (`mcbot ...`, `<name> ...`, `<name>, ...`, `@<name> ...`, or any whisper)."""

from __future__ import annotations

import re

MAX_LINE = 256  # vanilla's chat message limit
PREFIX = "mcbot"
_CODES = re.compile("\u00a7.?")  # a formatting code (the section sign) and the character it takes
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_SPACES = re.compile(r"\s+")


def clean(text: object) -> str:
    """The line as plain, bounded text."""
    line = _CONTROL.sub(" ", _CODES.sub("", str(text)[: 4 * MAX_LINE]))
    return _SPACES.sub(" ", line).strip()[:MAX_LINE]


def in_one_message(text: str) -> str:
    """The text without characters outside the Basic Multilingual Plane: the client counts a
    line's 256 in UTF-16 units and sends the rest as a second message, which would start with
    the text's own words (and one starting with `/` is sent as a server command)."""
    return "".join(c for c in text if ord(c) <= 0xFFFF)


def addressed(line: str, bot_name: str, *, whisper: bool = False) -> str | None:
    """The command text of a line addressed to the bot, None when it is not addressed."""
    words = line.split(" ", 1)
    head = words[0].lower().rstrip(",:").lstrip("@")
    if head in (PREFIX, bot_name.lower()):
        return words[1].strip() if len(words) > 1 else ""
    return line if whisper else None
