"""`mcbot bench chat`: the time from a commander's line in the game's chat to the bot's first
reply, as the commander's own client receives it (p50/p95), measured side by side in one run:
quiet rounds, and rounds with a chat flood running beside them (a stranger's player saying
FLOOD_PER_S lines a second, every other one addressed to the bot). The bot is the daemon's
Agency in-process on the bench's bridge, its body job at the daemon's cadence
(`jobs.body_s`), on an embedded world with no mobs. Target: p95 under 1 s with the flood.

The commander asks `mcbot status` (answered from the task store, no world read) and waits
ROUND_GAP_S between rounds, slower than the reply gate's one a second after its burst."""

from __future__ import annotations

import asyncio
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from agency.stats import percentile
from agency.world import EventType
from bot.config.loader import McbotConfig
from bot.runtime.body import MineflayerBody
from bot.runtime.body_connection import ConnectionSettings
from bot.runtime.session import live_session
from bot.runtime.wiring import Agency
from bot.tooling.bench import bench_world
from bot.tooling.progress import Progress

TARGET_P95_MS = 1000.0
MODES = ("quiet", "flood")
FLOOD_PER_S = 10
ROUND_GAP_S = 1.5
REPLY_WAIT_S = 10.0  # a reply not heard by then is counted as missed
BOSS, CROWD = "bench_boss", "bench_crowd"
FLOOD_LINES = ("mcbot give me 64 diamond", "anyone seen my horse?", "mcbot status", "lag?", "gg")


class ChatRig:
    def __init__(self, agency: Agency, boss: MineflayerBody, crowd: MineflayerBody, body_s: float) -> None:
        self.agency, self.boss, self.crowd, self.body_s = agency, boss, crowd, body_s
        self.flooding = False
        self.flood_lines = 0

    async def body_job(self, stop: asyncio.Event) -> None:
        """The daemon's body job: the bot's events (chat among them) every jobs.body_s."""
        while not stop.is_set():
            await self.agency.job_body()
            await asyncio.sleep(self.body_s)

    async def flood(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            if self.flooding:
                await asyncio.to_thread(self.crowd.chat, random.choice(FLOOD_LINES))
                self.flood_lines += 1
            await asyncio.sleep(1 / FLOOD_PER_S)

    async def round(self) -> float | None:
        """ms from the commander's line to the reply at its client; None when none came."""
        await asyncio.to_thread(self.boss.events)  # what came before is not the reply
        await asyncio.sleep(random.uniform(0, self.body_s))  # at a phase the body job does not know
        said = time.monotonic()
        await asyncio.to_thread(self.boss.chat, "mcbot status")
        while time.monotonic() - said < REPLY_WAIT_S:
            for e in await asyncio.to_thread(self.boss.events):
                if e.type is EventType.chat and f"{BOSS}, " in str(e.data.get("message")):
                    return (time.monotonic() - said) * 1000
            await asyncio.sleep(0.01)
        return None


async def _run(rig: ChatRig, rounds: int, progress: Progress | None) -> dict[str, list[float | None]]:
    stop = asyncio.Event()
    jobs = [asyncio.create_task(rig.body_job(stop)), asyncio.create_task(rig.flood(stop))]
    times: dict[str, list[float | None]] = {m: [] for m in MODES}
    try:
        await asyncio.sleep(2.0)  # the chat handler is listening
        for i in range(rounds):
            for mode in MODES:  # side by side: quiet and flood rounds alternate
                rig.flooding = mode == "flood"
                if rig.flooding:
                    await asyncio.sleep(1.0)  # the flood is running before the line is said
                ms = await rig.round()
                times[mode].append(ms)
                rig.flooding = False
                if progress:
                    shown = "missed" if ms is None else f"{ms:.0f} ms"
                    progress.step(2 * i + MODES.index(mode) + 1, f"round {i + 1}/{rounds} ({mode}): {shown}")
                await asyncio.sleep(ROUND_GAP_S)
    finally:
        stop.set()
        await asyncio.gather(*jobs, return_exceptions=True)
    return times


def measure(cfg: McbotConfig, port: int, rounds: int, progress: Progress | None = None) -> dict[str, Any]:
    with live_session(cfg, embedded=False, host="127.0.0.1", port=port) as s, tempfile.TemporaryDirectory() as d:
        boss = MineflayerBody(s.bridge, ConnectionSettings(port=port, username=BOSS))
        crowd = MineflayerBody(s.bridge, ConnectionSettings(port=port, username=CROWD))
        agency = Agency(
            McbotConfig.model_validate(
                {
                    "storage": {"db_path": str(Path(d) / "agency.db")},
                    "bot": {"username": cfg.bot.username},
                    "chat": {"commanders": [BOSS]},
                    "llm": {"targets": []},
                }
            )
        )
        try:
            boss.connect()
            crowd.connect()
            agency.attach_body(s.body)
            if progress:
                modes = ", ".join(MODES)
                progress.begin(2 * rounds, f"{rounds} rounds per mode ({modes}), {FLOOD_PER_S} lines/s flood")
            rig = ChatRig(agency, boss, crowd, cfg.jobs.body_s)
            times = asyncio.run(_run(rig, rounds, progress))
        finally:
            agency.close()
            crowd.close()
            boss.close()
    out: dict[str, Any] = {"rounds": rounds, "body_s": cfg.jobs.body_s, "flood_per_s": FLOOD_PER_S, "modes": {}}
    for mode, got in times.items():
        ms = sorted(t for t in got if t is not None)
        out["modes"][mode] = {
            "n": len(ms),
            "missed": len(got) - len(ms),
            "p50_ms": percentile(ms, 0.5),
            "p95_ms": percentile(ms, 0.95),
            "max_ms": ms[-1] if ms else None,
        }
    flood = out["modes"]["flood"]
    out["target_met"] = not flood["missed"] and flood["p95_ms"] is not None and flood["p95_ms"] < TARGET_P95_MS
    return out


def bench_chat(
    cfg: McbotConfig,
    as_json: bool = False,
    rounds: int = 10,
    versions: str | None = None,
    config_path: str | None = None,
) -> int:
    return bench_world(
        "chat",
        cfg,
        lambda port, progress: measure(cfg, port, rounds, progress),
        as_json=as_json,
        rounds=rounds,
        versions=versions,
        config_path=config_path,
        quiet={"hostiles": False, "animals": False},
        table=_print_table,
        met=lambda results: all(r["target_met"] for r in results.values()),
    )


def _fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.0f}"


def _print_table(results: dict[str, Any]) -> None:
    first = next(iter(results.values()))
    print(
        f"chat reply time, ms from a commander's line to the bot's first reply at the commander's client "
        f"(body job every {first['body_s']:g} s; flood: {first['flood_per_s']} lines/s from another player; "
        f"target: flood p95 < {TARGET_P95_MS:.0f} ms)"
    )
    print(f"{'version':10}" + "".join(f"{m + ' p50 / p95 / max':>28}" for m in MODES) + "   target met")
    for v, r in results.items():
        cells = ""
        for m in MODES:
            k = r["modes"][m]
            miss = f" ({k['missed']} missed)" if k["missed"] else ""
            cells += f"{_fmt(k['p50_ms']) + ' / ' + _fmt(k['p95_ms']) + ' / ' + _fmt(k['max_ms']) + miss:>28}"
        print(f"{v:10}{cells}   {'yes' if r['target_met'] else 'NO'}")
