"""LLM output sanitizer: the fixed pipeline of docs/contracts.md SANITIZE-1.

    strip_code_fences -> strip_wrapping_quotes -> strip_system_prompt_leaks
      -> extract_goal_tag -> extract_intent -> truncate_degeneration
      -> strip_trailing_garbage -> normalize_whitespace

Goal extraction runs before INTENT extraction, both before degeneration truncation and
whitespace normalization, so a tag near the end of a degenerate reply is still seen and
never left half-cut in the text. No stage adds a newline, and normalization keeps line
structure (INTENT-2): multi-line thoughts stay multi-line. One hygiene step follows the
eight stages, neutralize_leftover_tokens, for INTENT tokens only.

Only the matched goal tag leaves the text (TAG-2): a later tag stays as written. It can never
become a second goal (TAG-3) because a thought's goal is read once, here, into its metadata: the
stream stores the text, planning converts metadata.extractedGoal, and nothing extracts a
stored text again (keep-alive's memory leaves out thoughts that still hold a tag).

build_llm_thought turns one sanitized LLM reply into a Thought.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

from agency.cognition.counters import AgencyCounters
from agency.goal_tag import (  # re-exported: callers import the sanitizer's surface from here
    ACTION_NORMALIZE_MAP,
    CANONICAL_ACTIONS,
    NORMALIZE_MAP_VERSION,
    ExtractedGoal,
    GoalFailReason,
    build_goal_tag_v1,
    canonical_goal_key,
    extract_goal_tag,
)
from agency.intent import VALID_INTENTS, IntentParse, extract_intent
from agency.thoughts import Thought, ThoughtMetadata, is_convert_eligible, novelty_for

__all__ = [
    "ACTION_NORMALIZE_MAP",
    "CANONICAL_ACTIONS",
    "NORMALIZE_MAP_VERSION",
    "VALID_INTENTS",
    "ExtractedGoal",
    "SanitizeResult",
    "build_goal_tag_v1",
    "canonical_goal_key",
    "extract_goal_tag",
    "extract_intent",
    "sanitize",
]

MAX_OUTPUT_CHARS = 2000  # a thought is a few sentences; anything longer is runaway output
CHAR_RUN_LIMIT = 16  # "!!!!!!!!!!!!!!!!" or "aaaaaaaa..." means the model is stuck
WORD_RUN_LIMIT = 4  # "wood wood wood wood"
SENTENCE_REPEAT_LIMIT = 3  # third occurrence of the same sentence anywhere
LONG_UNIT = 12  # sentences at least this long may not repeat back to back

_QUOTE_PAIRS = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019", "`": "`", "\u00ab": "\u00bb"}
_ROLE_LABEL = re.compile(
    r"\A\s*(?:assistant|ai|bot|response|output|answer|internal thought|inner thought|"
    r"my thought|thought|thinking)[^\S\n]*:[^\S\n]*",
    re.IGNORECASE,
)
# Lines that echo the system prompt back instead of thinking.
_LEAK_LINE_PREFIXES = (
    "system:",
    "[system]",
    "<<sys>>",
    "<|system|>",
    "<|im_start|>",
    "you are a minecraft",
    "you are an ai",
    "you are a helpful",
    "your task is to",
    "respond in ",
    "respond with ",
    "output format:",
    "do not include",
)
_SPECIAL_TOKENS = ("<|endoftext|>", "<|im_end|>", "<|eot_id|>", "<|end|>", "</s>", "<end_of_turn>", "<eos>")
_GARBAGE_CHARS = frozenset(" \t\r\f\v\n\"'`*#|_~=-<>[{(,;:/\\")
_HSPACE = re.compile(r"[^\S\n]+")
_UNIT = re.compile(r"[^.!?\n]+[.!?]*")  # a sentence-ish unit: linear, no nested quantifier


class SanitizeResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    goal: ExtractedGoal | None
    goal_fail_reason: GoalFailReason | None
    intent: str | None
    intent_parse: IntentParse | None


def strip_code_fences(text: str) -> str:
    if "```" not in text:
        return text
    lines = text.split("\n")
    return "\n".join("" if ln.lstrip().startswith("```") else ln.replace("```", "") for ln in lines)


def strip_wrapping_quotes(text: str) -> str:
    s = text.strip()
    for _ in range(2):  # '"\'quoted\'"' happens; deeper nesting does not
        if len(s) >= 2 and s[0] in _QUOTE_PAIRS and s[-1] == _QUOTE_PAIRS[s[0]] and s[0] not in s[1:-1]:
            s = s[1:-1].strip()
        else:
            break
    return s if s != text.strip() else text


def _strip_role_labels(text: str) -> str:
    for _ in range(3):  # "Assistant: Thought: ..." stacks at most a couple of labels
        stripped = _ROLE_LABEL.sub("", text, count=1)
        if stripped == text:
            break
        text = stripped
    return text


def strip_system_prompt_leaks(text: str) -> str:
    # Labels before and after: "Assistant: You are a ..." and "You are a ...\nThought: ...".
    lines = _strip_role_labels(text).split("\n")
    text = "\n".join("" if ln.lstrip().lower().startswith(_LEAK_LINE_PREFIXES) else ln for ln in lines)
    return _strip_role_labels(text)


def _cap(text: str) -> str:
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    cut = text.rfind(" ", 0, MAX_OUTPUT_CHARS)
    return text[: cut if cut > MAX_OUTPUT_CHARS // 2 else MAX_OUTPUT_CHARS]


def _repeated_unit_start(text: str) -> int | None:
    """Offset of the first sentence that repeats degenerately, or None."""
    seen: dict[str, int] = {}
    prev = None
    for m in _UNIT.finditer(text):
        key = " ".join(m.group().lower().split())
        if not key:
            continue
        seen[key] = seen.get(key, 0) + 1
        if seen[key] >= SENTENCE_REPEAT_LIMIT or (key == prev and len(key) >= LONG_UNIT):
            return m.start()
        prev = key
    return None


def _repeated_word_start(text: str) -> int | None:
    run, prev = 0, None
    second_start = 0
    for m in re.finditer(r"\S+", text):
        word = m.group().lower().strip(".,;:!?")
        if word and word == prev:
            run += 1
            if run == 1:
                second_start = m.start()
            if run + 1 >= WORD_RUN_LIMIT:
                return second_start
        else:
            run, prev = 0, word
    return None


def _char_run_start(text: str) -> int | None:
    run, prev = 0, ""
    for i, ch in enumerate(text):
        run = run + 1 if ch == prev else 1
        prev = ch
        if run >= CHAR_RUN_LIMIT and not ch.isspace():
            return i - run + 1
    return None


def truncate_degeneration(text: str) -> str:
    """Cut the text where the model starts looping; keep everything before it."""
    text = _cap(text)
    cuts = [c for c in (_repeated_unit_start(text), _repeated_word_start(text), _char_run_start(text)) if c is not None]
    return text[: min(cuts)] if cuts else text


def strip_trailing_garbage(text: str) -> str:
    end = len(text)
    changed = True
    while changed and end:
        changed = False
        while end and text[end - 1] in _GARBAGE_CHARS:
            end -= 1
            changed = True
        for tok in _SPECIAL_TOKENS:
            if text.endswith(tok, 0, end):
                end -= len(tok)
                changed = True
        # An unclosed bracket at the very end is a cut-off tag or token ("[GOAL: coll").
        open_at = max(text.rfind("[", 0, end), text.rfind("<", 0, end))
        if open_at != -1 and end - open_at <= 120 and not any(c in text[open_at:end] for c in "]>\n"):
            end = open_at
            changed = True
    return text[:end]


def normalize_whitespace(text: str) -> str:
    """Collapse horizontal whitespace and blank-line runs; never joins lines."""
    lines = [_HSPACE.sub(" ", ln).strip() for ln in text.split("\n")]
    out: list[str] = []
    blank = 0
    for ln in lines:
        blank = blank + 1 if not ln else 0
        if blank <= 1:
            out.append(ln)
    return "\n".join(out).strip("\n")


_LEFTOVER_INTENT = re.compile(r"INTENT:", re.IGNORECASE)


def neutralize_leftover_tokens(text: str) -> str:
    """Hygiene after the eight stages: stripping one token can splice another INTENT
    token together. Such a leftover keeps its word but is defused by same-length
    substitution (':' -> ' '), which can never form a new token. Goal tags are not touched
    here (only the matched one is stripped, by the extraction)."""
    return _LEFTOVER_INTENT.sub(lambda m: m.group()[:-1] + " ", text)


def sanitize(text: str) -> SanitizeResult:
    text = strip_code_fences(text)
    text = strip_wrapping_quotes(text)
    text = strip_system_prompt_leaks(text)
    goal = extract_goal_tag(text)
    intent = extract_intent(goal.text)
    out = truncate_degeneration(intent.text)
    out = strip_trailing_garbage(out)
    out = normalize_whitespace(out)
    out = neutralize_leftover_tokens(out)
    return SanitizeResult(
        text=out,
        goal=goal.goal,
        goal_fail_reason=goal.fail_reason,
        intent=intent.intent,
        intent_parse=intent.intent_parse,
    )


def build_llm_thought(
    raw: str,
    *,
    now_ms: int,
    origin: Literal["llm", "heartbeat"] = "llm",
    counters: AgencyCounters | None = None,
    thought_type: str = "reflection",
    cognitive_system: str = "llm",
) -> Thought:
    """Sanitize one LLM reply into a thought. Counts goalTags and intentExtractions; the
    caller counts llmCalls where it actually calls the model."""
    result = sanitize(raw)
    novelty = novelty_for(origin)
    goal = result.goal
    if counters is not None:
        if goal is not None:
            counters.increment("goalTags")
        if result.intent not in (None, "none"):
            counters.increment("intentExtractions")
    meta = ThoughtMetadata(
        extractedGoal=goal,
        extractedGoalSource="llm" if goal else None,
        extractedIntent=result.intent,
        intentParse=result.intent_parse,
        goalKey=canonical_goal_key(goal.action, goal.target) if goal else None,
        goalFailReason=result.goal_fail_reason if result.goal_fail_reason != "no_tag" else None,
    )
    return Thought(
        type=thought_type,
        content=result.text,
        timestamp=now_ms,
        novelty=novelty,
        cognitiveSystem=cognitive_system,
        convertEligible=is_convert_eligible(novelty=novelty, extracted_goal=goal, extracted_intent=result.intent),
        metadata=meta,
    )
