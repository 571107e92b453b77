"""Scenario frames from a recorded replay fixture (`--from-fixture`, tests/fixtures/*.jsonl).

Each recorded snapshot becomes one scenario: the snapshot itself, the snapshot before it
as the delta base, and the stimuli real perception derives from the events in between
(the same Perception the daemon runs, on the recording's clock). A scenario is low
stimulus when nothing but novel creatures happened and no hostile is around.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from loguru import logger

from agency.eval.suite import LoadedSuite, PreparedScenario, ScenarioExpect, scenario_hash
from agency.perception.replay import Recording
from agency.perception.stimuli import Perception

CALM_STIMULI = frozenset({"novel_entity"})


def load_fixture_suite(path: str | Path) -> LoadedSuite:
    p = Path(path)
    data = p.read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    count = sum(1 for ln in data.decode("utf-8").splitlines() if ln.strip())
    logger.info("[Eval] suite_loaded path={} line_count={} suite_sha256={}", p, count, sha)
    rec = Recording(p)  # raises ReplayFormatError naming file and line
    now = [0]
    perception = Perception(lambda: now[0])
    scenarios: list[PreparedScenario] = []
    prev = None
    last_t = -1
    for i, (t, snap) in enumerate(rec.snapshots, start=1):
        now[0] = t
        events = [ev for et, ev in rec.events if last_t < et <= t]
        stimuli = tuple(perception.observe(snap, events).stimuli)
        kinds = {s.kind for s in stimuli}
        calm = kinds <= CALM_STIMULI and snap.hostiles == 0
        scenarios.append(
            PreparedScenario(
                id=f"{p.stem}-{i:03d}-t{t}",
                version=1,
                hash=scenario_hash(snap.model_dump(mode="json")),
                stimulus="low" if calm else "high",
                snapshot=snap,
                previous=prev,
                stimuli=stimuli,
                memory=(),
                expect=ScenarioExpect(),
                line=i,
                description=f"snapshot {i} of {p.name} at t={t} ms",
            )
        )
        prev, last_t = snap, t
    return LoadedSuite(f"fixture-{p.stem}", p, sha, count, scenarios)
