"""The idle-wedge judge of `mcbot bench survival` (bot/tooling/bench_survival_report.py):
stretches of daylight in which a run made no progress at all, over the samples' world clock."""

from __future__ import annotations

import math
from typing import Any

from agency.game.furnace import held_inputs, inputs_for, output_of
from agency.game.recipes import matches, recipe_for
from agency.goal_tag import MAKE_ACTIONS
from agency.tools.gathering import drop_of
from bot.tooling.competence_milestones import GAME_S_PER_DAY, NIGHT_END, NIGHT_START, TICKS_PER_S, daytime

IDLE_GAME_S = GAME_S_PER_DAY / 4  # daytime with nothing done, then the bot is stuck in a loop
ENDED = ("completed", "failed", "unplannable")


def day_part(tod: int, ticks: float) -> float:
    """Of `ticks` game ticks from time of day `tod`, those outside the night: a night slept
    through between two samples is no daylight (the bench at dc34bf1 counted one as 577 s of
    idle daylight, and judged a bot that had worked all evening wedged)."""
    start, end = float(tod % 24_000), tod % 24_000 + ticks
    night = sum(
        max(0.0, min(end, base + NIGHT_END) - max(start, base + NIGHT_START))
        for base in range(-24_000, int(end) + 24_000, 24_000)
    )
    return ticks - night


GATHERS = ("collect", "gather", "mine")


def parts_of(item: str, n: int = 1, depth: int = 3) -> dict[str, int]:
    """How much of `item` and of what its recipe takes, and what those take, `depth` recipes
    down, `n` of it needs (a bed: 3 wool, 3 planks, 1 log for the planks; a stone pickaxe: 3
    cobblestone, 2 sticks, 1 planks, 1 log; an iron pickaxe: 3 ingots and 3 of what smelts into
    them), by generic name (agency.game.recipes)."""
    parts = {item: n}
    rec = recipe_for(item) if depth > 0 else None
    if rec is None:
        # smelted, not crafted: what smelts into it is the step before (raw iron for ingots: an
        # iron pickaxe's plan gathered its iron for minutes, judged no progress at 26.1 seed
        # 2584 at 10bf15c)
        if depth > 0 and (inputs := inputs_for(item)):
            parts["|".join(inputs)] = n
        return parts
    crafts = math.ceil(n / rec.makes)
    for ingredient, k in rec.ingredients:
        for part, m in parts_of(ingredient, k * crafts, depth - 1).items():
            parts[part] = parts.get(part, 0) + m
    return parts


def goal_held(goal_key: str, inventory: dict[str, int]) -> int | None:
    """How much of what an active task's goal gets the inventory holds (any log for `collect:log`,
    raw iron for `collect:iron_ore`, ingots and raw iron for `smelt:raw_iron`; for a craft, the item and what
    its plan gathers for it, as much as it takes, parts_of: a bed's sheep hunt got one wool in 5 minutes, its
    progress at 0 throughout, at 26.1 seed 6391 at 5f5a076); None for a goal that gets no item
    (a build, a hunt of any animal, exploring)."""
    action, _, target = goal_key.partition(":")
    if not target:
        return None
    if action in GATHERS:
        item = drop_of(target)
        return sum(n for name, n in inventory.items() if name == item or matches(target, name))
    if action == "smelt":
        # the output and what smelts into it: a food stock's hunt brought 2 chickens in 6
        # minutes of a cooked_chicken goal (1.18.2 seed 6417 at 10bf15c, judged an idle wedge)
        item = output_of(target) or target
        made = sum(n for name, n in inventory.items() if matches(item, name))
        return made + sum(held_inputs(inventory, item).values())
    if action in MAKE_ACTIONS:
        # each part counted up to what the craft takes: stone dug on the way is no progress past 3
        return sum(
            min(need, sum(n for name, n in inventory.items() if matches(part, name)))
            for part, need in parts_of(target).items()
        )
    return None


def idle_wedges(
    samples: list[dict[str, Any]], game_s: list[float | None], reached: dict[str, float | None]
) -> list[dict[str, Any]]:
    """Stretches with a quarter of a game day of daylight (IDLE_GAME_S) and no task completed,
    no task's checkpointed progress past its best, and no milestone reached: a bot failing in a
    loop (explore and shelter failing again and again underground) still moves, so the frozen
    judgement of `wedges` never sees it. A long task whose steps go on one after another (a
    first hut gathering its logs, then its walls) is work, not a loop: its progress only rises
    (the executor reports the steps done), and a replanned or resumed run does not raise it
    again. The best is kept per goal, not per task: a goal that fails part way is retried as a
    new task, and a retry climbing back to where the last one failed is the loop, not work; a
    goal's best starts over once a task of it completes. A step that goes on getting its goal's
    item is work too (a collect of 8 logs in a sparse wood gained one every 20-40 s for five
    minutes in one step, its progress at 0 throughout): the held count of an active task's goal
    item above the last sample's (goal_held; the hut had used the logs of an earlier sample,
    so not above its best). Night does not count: the bot keeps to its shelter then."""
    progress = sorted(g for g in reached.values() if g is not None)
    done: set[str] = set()
    ended: set[str] = set()  # tasks seen completed, failed or unplannable: read once, then left out
    best: dict[str, float] = {}  # each goal's highest progress seen since its last completion
    last: dict[str, int] = {}  # each active goal's held count of its item at the last sample
    out: list[dict[str, Any]] = []
    start: float | None = None  # game s of the last progress (or the first clock reading)
    light = 0.0  # daytime game s since then
    prev: float | None = None
    prev_tod: int | None = None

    def close(until: float) -> None:
        if start is not None and light >= IDLE_GAME_S:
            out.append(
                {
                    "kind": "idle",
                    "from": start,
                    "to": until,
                    "s": round(until - start, 1),
                    "daylight_s": round(light, 1),
                }
            )

    for s, g in zip(samples, game_s, strict=True):
        if g is None:
            continue
        finished = {t["id"] for t in s.get("tasks", []) if t.get("status") == "completed"} - done
        done |= finished
        advanced = False
        for t in s.get("tasks", []):
            key = t.get("goalKey") or t["id"]
            if t["id"] in ended:  # every sample lists the old tasks: an old failure is not the goal's best again
                continue
            if t.get("status") in ENDED:
                ended.add(t["id"])
            if t["id"] in done:  # completed (counted in finished): the goal's next task starts over
                best.pop(key, None)
                continue
            p = float(t.get("progress") or 0)
            advanced |= p > best.get(key, 0.0)
            best[key] = max(p, best.get(key, 0.0))
            held = goal_held(key, s.get("inventory") or {}) if t.get("status") == "active" else None
            if held is not None:
                advanced |= held > last.get(key, held)
                last[key] = held
        moved = bool(finished) or advanced or any(prev is not None and prev < at <= g for at in progress)
        if start is None or moved:
            if start is not None:
                close(g)
            start, light = g, 0.0
        elif prev is not None and prev_tod is not None and daytime(s):
            light += day_part(prev_tod, (g - prev) * TICKS_PER_S) / TICKS_PER_S
        prev, prev_tod = g, s.get("timeOfDay")
    if prev is not None:
        close(prev)
    return out
