"""What a command text asks: a chat command of its own (help, status, inventory, stop, come,
follow me, give me N item), else a goal in the goal grammar (`collect oak_log 8`, `obtain
compass`, `build basic_shelter`), which goes to the goal intake like any user's goal."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MAX_GIVE = 64 * 9  # a give asks at most nine stacks
_GIVE = re.compile(r"^give(?: me)?(?: (\d+))? ([a-z0-9_ ]+?)(?: (\d+))?$")
_NAME = re.compile(r"^[a-z0-9_]{1,64}$")


@dataclass(frozen=True)
class Command:
    kind: str  # help | status | inventory | stop | come | follow | give | goal | bad
    args: dict[str, object] = field(default_factory=dict)


SIMPLE = {
    "help": "help",
    "?": "help",
    "status": "status",
    "what are you doing": "status",
    "inventory": "inventory",
    "inv": "inventory",
    "stop": "stop",
    "come": "come",
    "come here": "come",
    "follow": "follow",
    "follow me": "follow",
}


# Words of a sentence, not of the goal grammar (`collect oak_log 8`): with a model configured,
# a line holding one goes to the model (agency.chat.talk) rather than the grammar, which would
# read "get me diamonds please" as an item named me_diamonds_please.
_SPOKEN = frozenset(
    {
        *("i", "me", "my", "we", "us", "you", "your", "please", "could", "would", "can", "will", "some"),
        *("any", "a", "an", "the", "hi", "hello", "hey", "thanks", "thank", "what", "why", "how", "where"),
        *("when", "who", "is", "are", "do", "does"),
    }
)


def spoken(text: str) -> bool:
    """Is the line a sentence in plain words rather than a goal in the grammar?"""
    return "?" in text or any(w.strip(",.!") in _SPOKEN for w in text.lower().split())


def parse(text: str) -> Command:
    """The command a cleaned, addressed text asks for."""
    words = text.lower().strip().rstrip("!.?") if text.strip() not in ("?",) else "?"
    if not words:
        return Command("help")
    if words in SIMPLE:
        return Command(SIMPLE[words])
    give = _GIVE.match(words)
    if give:
        count = int(give.group(1) or give.group(3) or 1)
        item = give.group(2).strip().replace(" ", "_")
        if not _NAME.match(item):
            return Command("bad", {"why": "give me needs an item name, e.g. give me 8 oak_log"})
        if not 1 <= count <= MAX_GIVE:
            return Command("bad", {"why": f"give me takes 1 to {MAX_GIVE} items"})
        return Command("give", {"item": item, "count": count})
    return Command("goal", {"text": words})
