"""Setting up the shared embedded world for an integration test, through the bot's own chat
(the server's /mcbot and vanilla commands): reading a block, teleporting, a flat stone pad,
gifts, full vitals, and the daemon's Agency in-process with its executor driven by the test. Every step waits for the
world to show it happened, with a bounded timeout."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agency.clock import Clock, system_clock_ms
from agency.execution.agents import AgentRuntime, load_default_registry
from agency.execution.builtin_tools import default_tool_registry
from agency.execution.executor import Executor
from agency.execution.reflexes import ReflexConfig, Reflexes
from agency.names import same
from agency.planning.tasks.store import SqliteTaskStore
from agency.tools import ToolContext
from bot.config.loader import McbotConfig
from bot.runtime.wiring import Agency
from tests.conftest import wait_until


def block_at(body: Any, x: int, y: int, z: int) -> str | None:
    return body.region((x, y, z), (1, 1, 1)).block_at(x, y, z)


def feet(body: Any) -> tuple[int, int, int]:
    p = body.snapshot().position
    return math.floor(p.x), math.floor(p.y), math.floor(p.z)


def teleport(body: Any, name: str, x: int, y: int, z: int) -> None:
    """Move the bot to the middle of x, z at y, and wait for the chunks there to load. The
    server runs the teleport after the fills and setblocks sent before it (docs/world.md)."""

    def there() -> bool:
        p = body.snapshot().position
        return abs(p.x - (x + 0.5)) < 1.5 and abs(p.z - (z + 0.5)) < 1.5

    body.chat(f"/mcbot tp {name} {x} {y} {z}")
    wait_until(there, 30, f"{name} teleported")  # after the fills before it: seconds on a loaded machine
    # the chunks there must be loaded before the world around can be read
    wait_until(lambda: block_at(body, x, y - 1, z) is not None, 10, "chunks loaded")


def fill(body: Any, lo: tuple[int, int, int], hi: tuple[int, int, int], block: str) -> None:
    """/mcbot fill the box from lo to hi, and wait until the bot sees every block of it: the
    server runs a player's commands as they arrive, so a later command (a /give) can finish
    before a fill that waits on its chunks."""
    body.chat(f"/mcbot fill {lo[0]} {lo[1]} {lo[2]} {hi[0]} {hi[1]} {hi[2]} {block}")
    size = (hi[0] - lo[0] + 1, hi[1] - lo[1] + 1, hi[2] - lo[2] + 1)

    def done() -> bool:
        region = body.region(lo, size)
        return all(
            same(region.block_at(x, y, z), block)  # either version's spelling (short_grass, grass)
            for x in range(lo[0], hi[0] + 1)
            for y in range(lo[1], hi[1] + 1)
            for z in range(lo[2], hi[2] + 1)
        )

    wait_until(done, 15, f"{block} from {lo} to {hi}")


def stone_pad(body: Any, name: str, x: int, y: int, z: int, r: int = 10, headroom: int = 4) -> None:
    """A flat stone pad (floor at y - 1, 2r + 1 wide) with `headroom` + 1 blocks of clear air
    above it, centred on x, z, built before the bot is teleported onto its middle (fill works
    on unloaded chunks too)."""
    body.chat(f"/mcbot fill {x - r} {y - 1} {z - r} {x + r} {y - 1} {z + r} stone")
    body.chat(f"/mcbot fill {x - r} {y} {z - r} {x + r} {y + headroom} {z + r} air")
    teleport(body, name, x, y, z)  # after the fills: it lands on the pad
    wait_until(
        lambda: block_at(body, x, y - 1, z) == "stone" and block_at(body, x + r, y, z + r) == "air",
        10,
        "pad under the bot",
    )
    wait_until(lambda: abs(body.snapshot().position.y - y) < 0.5, 10, f"{name} standing on the pad")


def give(body: Any, name: str, items: dict[str, int]) -> None:
    """/give each item and wait until the inventory holds that many more."""
    before = {item: body.snapshot().count_of(item) for item in items}
    for item, n in items.items():
        body.chat(f"/give {name} {item} {n}")
    wait_until(
        lambda: all(body.snapshot().count_of(i) >= before[i] + n for i, n in items.items()), 15, f"given {items}"
    )


def restore_vitals(body: Any, name: str) -> None:
    body.chat(f"/mcbot health {name} 20")
    body.chat(f"/mcbot food {name} 20")
    wait_until(lambda: body.snapshot().health == 20 and body.snapshot().food == 20, 10, f"{name} healthy and fed")


def agency_on(body: Any, db_path: Path, **sections: Any) -> Agency:
    """The daemon's Agency on the session's bridge and server, drive ticks due every second; the
    test calls its jobs itself (drive tick, planning, executor) in the order it decides.
    `sections`: more of the config (chat={"commanders": [...]})."""
    cfg = McbotConfig.model_validate(
        {"storage": {"db_path": str(db_path)}, "drive_tick": {"interval_ms": 1000}, **sections}
    )
    agency = Agency(cfg)
    agency.attach_body(body)
    return agency


async def run_executor_until(agency: Any, pred: Callable[[], bool], timeout_s: float, what: str) -> None:
    """Tick the Agency's executor until pred holds; on timeout say what ran and the last goal events."""
    deadline = time.monotonic() + timeout_s
    while not pred():
        if time.monotonic() > deadline:
            t = agency.executor.current
            raise AssertionError(
                f"timed out after {timeout_s} s waiting for {what} (running: {t and t.task_id}); "
                f"events: {agency.goals.events[-5:]}"
            )
        await agency.job_executor()
        await asyncio.sleep(0.2)


def reflexes_on(body: Any, db_path: Path, config: ReflexConfig, clock: Clock = system_clock_ms) -> Reflexes:
    """The reflexes over a real body, with a task store and an executor of their own (no daemon);
    `clock`: the reflexes' own time (their holds and waits)."""
    tasks = SqliteTaskStore(db_path, dev_mode=False, strict_finalize=False)
    tools = default_tool_registry()
    ctx = ToolContext(body=body, poll_interval_s=0.2)
    executor = Executor(tasks, AgentRuntime(load_default_registry(), tools, ctx), ctx.clock)
    return Reflexes(tools, ctx, executor, config, clock=clock)
