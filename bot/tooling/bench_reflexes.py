"""`mcbot bench reflexes`: the time from a hostile entering its kind's threat radius, as the
server's packets bring it to the bot, to the reflex's first action on the bot (both stamped
on the node clock: node/lib/threats.js and the action's startedAt), per mob kind. Measured
side by side in one run: the reflexes woken by the threat watch (the daemon's way) and the
same reflexes on their plain 1 s tick. Target: watch p50 within 2 server ticks (100 ms).

Each round: a flat stone arena, the bot at its middle with a diamond sword, one mob
summoned just inside its kind's radius; the reflex answers it (fight, close in, evade)."""

from __future__ import annotations

import asyncio
import math
import random
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from agency.execution.agents import AgentRuntime, load_default_registry
from agency.execution.builtin_tools import default_tool_registry
from agency.execution.combat import threat_radii
from agency.execution.executor import Executor
from agency.execution.reflexes import ReflexConfig, Reflexes
from agency.planning.tasks.store import SqliteTaskStore
from agency.tools import ToolContext
from bot.config.loader import McbotConfig
from bot.runtime.body import MineflayerBody
from bot.runtime.reflex_watch import DEFAULT_POLL_S, ReflexWatch
from bot.runtime.session import live_session
from bot.tooling.bench import bench_world, wait_for
from bot.tooling.progress import Progress

KINDS = ("zombie", "spider", "skeleton", "creeper")
TARGET_P50_MS = 100.0  # 2 server ticks
MODES = ("watch", "tick")
ARENA = 12  # half-width of the stone floor
ROUND_S = 8.0  # a reflex that has not acted by then is counted as missed


class Arena:
    """The bot on a flat stone floor; mobs summoned at a distance in +x."""

    def __init__(
        self, body: MineflayerBody, reflexes: Reflexes, poll_s: float, at: tuple[int, int, int] | None = None
    ) -> None:
        self.body = body
        self.reflexes = reflexes
        self.watch = ReflexWatch(body, reflexes, poll_s=poll_s)
        self.starts: list[tuple[str, int]] = []  # (action kind, node ms) of every action started
        start_action = body.start_action

        def recorded(kind: str, args: dict[str, Any], timeout_ms: int | None = None) -> Any:
            st = start_action(kind, args, timeout_ms)
            self.starts.append((st.kind, st.startedAt))
            return st

        body.start_action = recorded  # type: ignore[method-assign]  # the bench records each start
        p = body.snapshot().position
        self.x, self.y, self.z = at or (math.floor(p.x), math.floor(p.y), math.floor(p.z))
        name = body.settings.username
        x, y, z = self.x, self.y, self.z
        body.chat("/time set 1000")
        body.chat(f"/mcbot fill {x - ARENA} {y - 1} {z - ARENA} {x + ARENA} {y - 1} {z + ARENA} stone")
        body.chat(f"/mcbot fill {x - ARENA} {y} {z - ARENA} {x + ARENA} {y + 5} {z + ARENA} air")
        body.chat(f"/give {name} diamond_sword 1")
        wait_for(lambda: body.snapshot().count_of("diamond_sword") >= 1, 15, "the sword")

    def reset(self) -> None:
        name = self.body.settings.username
        self.body.chat("/mcbot killall")
        self.body.chat(f"/mcbot health {name} 20")
        self.body.chat(f"/mcbot tp {name} {self.x + 0.5} {self.y} {self.z + 0.5}")

        def clear() -> bool:
            snap = self.body.snapshot()
            home = math.dist((snap.position.x, snap.position.z), (self.x + 0.5, self.z + 0.5))
            return home < 1 and not any(e.hostile for e in snap.entities)

        wait_for(clear, 10, "a clear arena")
        self.body.new_threats()
        self.watch.recent_threats = []
        self.starts.clear()

    async def round(self, kind: str, mode: str) -> dict[str, Any]:
        """One mob just inside its radius; the reaction in ms (None: no reflex acted)."""
        self.reset()
        radius = threat_radii(self.reflexes.config).get(kind, self.reflexes.config.fight_within)
        d = max(1.5, radius - 1.5)
        summon = f"/mcbot summon {kind} {self.x + 0.5 + d} {self.y} {self.z + 0.5}"
        reflexes: list[str] = []
        if mode == "watch":
            runner = asyncio.create_task(self.watch.run(budget_s=ROUND_S))
            await asyncio.sleep(0.3)  # polling, as between the daemon's reflex ticks
            self.body.chat(summon)
            await runner
        else:  # the plain tick: every second, at a phase the mob does not know
            self.body.chat(summon)
            await asyncio.sleep(random.uniform(0, 1.0))
            until = time.monotonic() + ROUND_S
            while time.monotonic() < until and not self.starts:
                reflexes.append(await self.watch.tick() or "")
                if not self.starts:
                    await asyncio.sleep(1.0)
        threats = [t for t in self.watch.recent_threats + self.body.new_threats() if t["name"] == kind]
        if not threats or not self.starts:
            return {"kind": kind, "mode": mode, "ms": None, "action": None}
        entered = min(t["ts"] for t in threats)
        first = min((s for s in self.starts if s[1] >= entered), key=lambda s: s[1], default=None)
        return {
            "kind": kind,
            "mode": mode,
            "ms": None if first is None else first[1] - entered,
            "action": None if first is None else first[0],
        }


def _reflexes(body: MineflayerBody, folder: Path) -> Reflexes:
    tasks = SqliteTaskStore(folder / "bench.db", dev_mode=False, strict_finalize=False)
    tools = default_tool_registry()
    ctx = ToolContext(body=body, poll_interval_s=0.05)
    executor = Executor(tasks, AgentRuntime(load_default_registry(), tools, ctx), ctx.clock)
    return Reflexes(tools, ctx, executor, ReflexConfig(shelter_at_night=False))


def measure(
    body: MineflayerBody,
    rounds: int,
    kinds: tuple[str, ...] = KINDS,
    modes: tuple[str, ...] = MODES,
    poll_s: float = DEFAULT_POLL_S,
    progress: Progress | None = None,
    at: tuple[int, int, int] | None = None,
) -> dict[str, Any]:
    """Rounds per kind and mode on a live body (the arena where it stands, or at `at`): per
    kind and mode p50/p95/max ms, the actions the reflexes started first, and the rounds
    where none acted. `progress` says a line per round."""
    with tempfile.TemporaryDirectory() as folder:
        if progress:
            progress.note("building the arena")
        arena = Arena(body, _reflexes(body, Path(folder)), poll_s, at)
        rows: list[dict[str, Any]] = []
        total = rounds * len(kinds) * len(modes)
        if progress:
            progress.begin(
                total,
                f"{total} rounds: {rounds} per mob kind ({', '.join(kinds)}) and mode "
                f"({', '.join(modes)}), each up to {ROUND_S:.0f} s after a reset",
            )
        for i in range(rounds):
            for kind in kinds:
                for mode in modes:
                    rows.append(asyncio.run(arena.round(kind, mode)))
                    if progress:
                        progress.step(len(rows), f"round {i + 1}/{rounds} {kind} ({mode}): {_fmt(rows[-1]['ms'])} ms")
        arena.reset()
    out: dict[str, Any] = {"rounds": rounds, "poll_ms": round(poll_s * 1000, 1), "kinds": {}}
    for kind in kinds:
        out["kinds"][kind] = {}
        for mode in modes:
            ms = sorted(r["ms"] for r in rows if r["kind"] == kind and r["mode"] == mode and r["ms"] is not None)
            actions = Counter(r["action"] for r in rows if r["kind"] == kind and r["mode"] == mode and r["action"])
            out["kinds"][kind][mode] = {
                "n": len(ms),
                "missed": rounds - len(ms),
                "p50_ms": statistics.median(ms) if ms else None,
                "p95_ms": ms[min(len(ms) - 1, int(0.95 * len(ms)))] if ms else None,
                "max_ms": ms[-1] if ms else None,
                "first_actions": dict(actions),
            }
    watch = [r["ms"] for r in rows if r["mode"] == "watch" and r["ms"] is not None]
    out["watch_p50_ms"] = statistics.median(watch) if watch else None
    out["target_met"] = bool(watch) and statistics.median(watch) <= TARGET_P50_MS
    return out


def bench_reflexes(
    cfg: McbotConfig,
    as_json: bool = False,
    rounds: int = 8,
    versions: str | None = None,
    config_path: str | None = None,
) -> int:
    def run(port: int, progress: Progress) -> dict[str, Any]:
        progress.note("the bot joins")
        with live_session(cfg, embedded=False, host="127.0.0.1", port=port) as s:
            return measure(s.body, rounds, progress=progress)

    return bench_world(
        "reflexes",
        cfg,
        run,
        as_json=as_json,
        rounds=rounds,
        versions=versions,
        config_path=config_path,
        quiet={"hostiles": False},
        table=_print_table,
    )


def _fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.0f}"


def _print_table(results: dict[str, Any]) -> None:
    versions = list(results)
    print(
        f"reflex reaction time, ms from a hostile entering its radius to the reflex's first action "
        f"(target: watch p50 <= {TARGET_P50_MS:.0f} ms; tick = the plain 1 s reflex tick)"
    )
    head = "".join(f"{f'{v} {m} p50/p95':>24}" for v in versions for m in MODES)
    print(f"{'kind':10}{head}   first action (watch)")
    for kind in next(iter(results.values()))["kinds"]:
        cells = ""
        for v in versions:
            for m in MODES:
                k = results[v]["kinds"][kind][m]
                miss = f" ({k['missed']} missed)" if k["missed"] else ""
                cells += f"{_fmt(k['p50_ms']) + ' / ' + _fmt(k['p95_ms']) + miss:>24}"
        acts = ", ".join(sorted({a for v in versions for a in results[v]["kinds"][kind]["watch"]["first_actions"]}))
        print(f"{kind:10}{cells}   {acts}")
    print(f"{'all kinds':10}" + "".join(f"{'watch p50 ' + _fmt(results[v]['watch_p50_ms']):>48}" for v in versions))
    print("target met: " + ", ".join(f"{v} {'yes' if results[v]['target_met'] else 'NO'}" for v in versions))
