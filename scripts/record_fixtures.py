#!/usr/bin/env python3
"""Record the replay fixtures in tests/fixtures/ from the embedded world.

    .venv/bin/python scripts/record_fixtures.py --version 26.1|1.21.11|1.21.4|1.18.2 [--out tests/fixtures]

writes tests/fixtures/<version>/<name>.jsonl: the replay tests run on every version's set.

Each fixture is a short scripted session: the script issues op commands while the
Recorder writes snapshots, events and regions (format: agency/perception/replay.py).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.config.loader import EMBEDDED_VERSIONS
from bot.runtime.body import ConnectionSettings, MineflayerBody
from bot.runtime.bridge import Bridge
from bot.runtime.logs import setup_logging
from bot.runtime.server import EmbeddedServer, EmbeddedServerSettings, free_port
from bot.tooling.recorder import Recorder

USER = "mcbot"


def day_to_dusk(rec: Recorder, elapsed: float, state: dict) -> None:
    """Morning, then the clock jumps towards dusk and night in steps."""
    steps = [(0.0, 1000), (3.0, 9000), (6.0, 11000), (9.0, 12000), (12.0, 13000), (15.0, 14000)]
    for at, ticks in steps:
        if elapsed >= at and at not in state:
            state[at] = True
            rec.record_chat(f"/time set {ticks}")


def taking_damage(rec: Recorder, elapsed: float, state: dict) -> None:
    """A calm start, then three hits and a hungry stomach."""
    steps = [
        (3.0, f"/mcbot damage {USER} 3"),
        (6.0, f"/mcbot damage {USER} 4"),
        (9.0, f"/mcbot food {USER} 12"),
        (12.0, f"/mcbot damage {USER} 6"),
    ]
    for at, cmd in steps:
        if elapsed >= at and at not in state:
            state[at] = True
            rec.record_chat(cmd)


FIXTURES: dict[str, tuple[float, Callable[[Recorder, float, dict], None]]] = {
    "day_to_dusk": (18.0, day_to_dusk),
    "taking_damage": (15.0, taking_damage),
}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--version", choices=EMBEDDED_VERSIONS, required=True)
    ap.add_argument("--out", default="tests/fixtures")
    args = ap.parse_args()
    setup_logging("INFO")
    out_dir = Path(args.out) / args.version
    out_dir.mkdir(parents=True, exist_ok=True)
    server = EmbeddedServer(EmbeddedServerSettings(port=free_port(), version=args.version, hostiles=False, seed=42))
    server.start()
    bridge = Bridge()
    bridge.start()
    try:
        for name, (seconds, script) in FIXTURES.items():
            body = MineflayerBody(bridge, ConnectionSettings(port=server.port, username=USER))
            body.connect()
            body.chat(f"/mcbot health {USER} 20")
            body.chat(f"/mcbot food {USER} 20")
            body.chat("/time set 1000")
            time.sleep(1.0)  # let the resets land before recording starts
            body.events()
            state: dict = {}
            with (out_dir / f"{name}.jsonl").open("w", encoding="utf-8") as f:
                rec = Recorder(body, f, config={"fixture": name, "seed": 42, "hostiles": False})
                rec.run(
                    seconds,
                    snapshot_every_s=1.0,
                    region_every_s=6.0,
                    on_tick=lambda r, e, script=script, state=state: script(r, e, state),
                )
            print(f"{name}: {rec.lines} lines", file=sys.stderr)
            body.close()
    finally:
        bridge.shutdown()
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
