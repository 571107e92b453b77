"""Goal tags: `[GOAL: <action> <target> [<amount>]]` parsed by a bounded scan (docs/contracts.md TAG-1).

No regex runs over model output here: the opener is found with str.find and the closing
']' must lie within MAX_GOAL_INNER chars of the inner start, so the cost is linear in the
input whatever the model emits. Parsing fails closed: a tag that does not validate yields
goal None plus a fail_reason for debugging, never a guessed goal.

Extraction strips only the tag it matched (TAG-2): later tags stay in the text.
A goal key is always exactly `action:target` (TAG-4): the one namespace a model writes,
`minecraft:` (`minecraft:oak_log`), is dropped, and any other colon fails closed.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# Bump whenever CANONICAL_ACTIONS or ACTION_NORMALIZE_MAP changes, so stored goals and
# eval results can say which vocabulary produced them.
NORMALIZE_MAP_VERSION = 3  # 2: 'hunt' is an action of its own (animals for food and wool); 3: 'descend'

# The single source of truth for actions a goal may carry.
CANONICAL_ACTIONS: frozenset[str] = frozenset(
    {
        "collect",
        "mine",
        "craft",
        "build",
        "explore",
        "navigate",
        "gather",
        "smelt",
        "place",
        "eat",
        "sleep",
        "flee",
        "attack",
        "find",
        "pause",
        "continue",
        "hunt",
        "descend",
    }
)

# Actions that make an item: their plan, from what the bot holds, gets every material itself
# (crafted, smelted, mined or hunted first) and needs nothing in sight but a table or furnace
# it can place where it stands.
MAKE_ACTIONS: frozenset[str] = frozenset({"craft", "smelt"})

# Synonyms models actually emit, mapped onto the allowlist. Canonical actions map to
# themselves so one lookup answers both questions.
ACTION_NORMALIZE_MAP: dict[str, str] = {
    **{a: a for a in CANONICAL_ACTIONS},
    "get": "collect",
    "obtain": "collect",
    "chop": "collect",
    "harvest": "collect",
    "acquire": "collect",
    "fetch": "collect",
    "cut": "collect",
    "pick": "collect",
    "make": "craft",
    "create": "craft",
    "go": "navigate",
    "walk": "navigate",
    "travel": "navigate",
    "move": "navigate",
    "goto": "navigate",
    "return": "navigate",
    "dig": "mine",
    "quarry": "mine",
    "construct": "build",
    "scout": "explore",
    "wander": "explore",
    "survey": "explore",
    "search": "find",
    "locate": "find",
    "seek": "find",
    "cook": "smelt",
    "run": "flee",
    "escape": "flee",
    "retreat": "flee",
    "fight": "attack",
    "kill": "attack",
    "butcher": "hunt",
    "slaughter": "hunt",
    "consume": "eat",
    "rest": "sleep",
    "wait": "pause",
    "stop": "pause",
    "resume": "continue",
}

MAX_GOAL_INNER = 100
MAX_GOAL_AMOUNT = 10_000
GOAL_OPENER = "[GOAL:"
NAMESPACE = "minecraft:"  # item ids are namespaced in commands and data; goals use the plain id
_TARGET_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")

GoalFailReason = Literal["no_tag", "tag_too_long", "malformed", "unknown_action", "no_target", "empty_inner"]


class ExtractedGoal(BaseModel):
    model_config = ConfigDict(frozen=True)

    action: str
    target: str
    amount: int = Field(default=1, ge=1)


class GoalTagResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    goal: ExtractedGoal | None
    fail_reason: GoalFailReason | None
    raw: str | None = None  # the tag exactly as it appeared, when one was found closed


def find_goal_opener(text: str, start: int) -> int:
    """Index of the next case-insensitive '[GOAL:' at or after start, or -1. Linear: each
    '[' is looked at once."""
    i = text.find("[", start)
    while i != -1:
        if text[i : i + len(GOAL_OPENER)].upper() == GOAL_OPENER:
            return i
        i = text.find("[", i + 1)
    return -1


def _closing_bracket(text: str, opener: int) -> int:
    """Index of the tag's ']' if it lies within the bound, else -1."""
    inner_start = opener + len(GOAL_OPENER)
    return text.find("]", inner_start, inner_start + MAX_GOAL_INNER + 1)


def _parse_inner(inner: str) -> ExtractedGoal | GoalFailReason:
    if not inner.strip():
        return "empty_inner"
    if "[" in inner or "\n" in inner:
        return "malformed"
    tokens = inner.lower().split()
    action = ACTION_NORMALIZE_MAP.get(tokens[0].strip(".,;:!?"))
    if action is None:
        return "unknown_action"
    rest = tokens[1:]
    amount = 1
    if rest and rest[-1].lstrip("+-").isdigit():
        if not rest[-1].isascii() or not rest[-1].isdigit():
            return "malformed"  # signed or non-ASCII digits: not an amount we trust
        amount = int(rest[-1])
        rest = rest[:-1]
        if not 1 <= amount <= MAX_GOAL_AMOUNT:
            return "malformed"
    if not rest:
        return "no_target"
    # Multi-word targets ("oak log") become one id ("oak_log").
    target = _plain_id("_".join(rest).replace("-", "_"))
    if not target:
        return "no_target"
    if not set(target) <= _TARGET_CHARS:
        return "malformed"  # includes a colon of any namespace but minecraft's
    return ExtractedGoal(action=action, target=target, amount=amount)


def parse_goal_text(text: str) -> ExtractedGoal | GoalFailReason:
    """A goal written without its tag ('collect oak_log 8', a user's goal) by the same
    grammar: the goal, or why the text is not one."""
    return _parse_inner(text)


def _plain_id(name: str) -> str:
    """'minecraft:oak_log' -> 'oak_log' (also 'minecraft:_oak_log', from 'minecraft: oak_log')."""
    return name[len(NAMESPACE) :].lstrip("_") if name.startswith(NAMESPACE) else name


def extract_goal_tag(text: str) -> GoalTagResult:
    """Parse the first goal tag and strip that tag from the text, changing nothing else.

    First tag wins: only the first opener decides the goal (a later valid tag is not a
    fallback for a broken first one) and later tags stay in the text. A closed first tag
    is stripped even when it does not validate; an unclosed or over-long one matched
    nothing, so the text comes back unchanged.
    """
    opener = find_goal_opener(text, 0)
    if opener == -1:
        return GoalTagResult(text=text, goal=None, fail_reason="no_tag")
    close = _closing_bracket(text, opener)
    if close == -1:
        return GoalTagResult(text=text, goal=None, fail_reason="tag_too_long")
    raw = text[opener : close + 1]
    parsed = _parse_inner(text[opener + len(GOAL_OPENER) : close])
    stripped = text[:opener] + text[close + 1 :]
    if isinstance(parsed, ExtractedGoal):
        return GoalTagResult(text=stripped, goal=parsed, fail_reason=None, raw=raw)
    return GoalTagResult(text=stripped, goal=None, fail_reason=parsed, raw=raw)


def without_goal_tags(text: str) -> str:
    """The text with every goal tag cut out: for words said to a player (a model's reply may
    carry a second tag, which TAG-2 leaves in a thought's text). A tag not closed within
    MAX_GOAL_INNER (cut off at the end, or runaway) takes the rest of the text with it. Linear,
    like extraction: each opener is looked at once."""
    out: list[str] = []
    start = 0
    while (opener := find_goal_opener(text, start)) != -1:
        close = _closing_bracket(text, opener)
        out.append(text[start:opener])
        if close == -1:
            return "".join(out)  # an open tag runs to the end of what is said
        start = close + 1
    return "".join(out) + text[start:]


def canonical_goal_key(action: str | None, target: str | None) -> str | None:
    """'action:target', lowercase, spaces and hyphens as underscores, a 'minecraft:'
    namespace dropped. None when either part is empty (an empty key must read as absent,
    never as '', TASK-3) or still holds a colon: a key is exactly action:target."""

    def part(s: str | None) -> str:
        words = (s or "").strip().lower().replace("-", " ").split()
        return _plain_id("_".join(words))

    a, t = part(action), part(target)
    if not a or not t or ":" in a or ":" in t:
        return None
    return f"{a}:{t}"


def build_goal_tag_v1(action: str, target: str, amount: int = 1) -> str:
    """The tag text drive ticks emit; it must round-trip through extract_goal_tag."""
    goal = _parse_inner(f"{action} {target} {amount}")
    if not isinstance(goal, ExtractedGoal) or goal.action != action:
        raise ValueError(f"not a canonical goal: action={action!r} target={target!r} amount={amount!r}")
    return f"{GOAL_OPENER} {goal.action} {goal.target} {goal.amount}]"
