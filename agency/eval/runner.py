"""An eval run: every scenario of a suite through the thought pipeline, concurrently up to a
limit, then metrics, properties, the verdict and the result bundle (docs/contracts.md EVAL-3..7).

The seed fixes the order scenarios are started in and is recorded everywhere; results are
always judged in suite order, so metrics do not depend on scheduling. (Providers get no
seed: the runtime's Sampling has no such field.)
"""

from __future__ import annotations

import asyncio
import random
import tempfile
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from loguru import logger

from agency.clock import Clock, system_clock_ms
from agency.cognition.counters import AgencyCounters
from agency.cognition.llm_thoughts import LlmThoughtGenerator
from agency.cognition.situation_frame import get_profile
from agency.errors import InvalidInputError
from agency.eval.artifacts import iso, model_config, run_dir, scenario_record, write_bundle
from agency.eval.metrics import compute_metrics, judge, planning_totals
from agency.eval.pipeline import Mode, ScenarioResult, run_scenario
from agency.eval.progress import Progress
from agency.eval.suite import LoadedSuite

DEFAULT_CONCURRENCY = 4
DEFAULT_OUT_ROOT = Path("artifacts") / "evals"


class RunDirExists(InvalidInputError, FileExistsError):
    pass


@dataclass(frozen=True)
class EvalOutcome:
    passed: bool
    summary: dict[str, Any]
    results: list[ScenarioResult]
    out_dir: Path


def default_run_id(seed: int) -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-s{seed}-{uuid.uuid4().hex[:6]}"


def log_mode(mode: Mode) -> None:
    if mode == "end_to_end":
        logger.info("[Eval] mode=end_to_end planning_ack=true")
    else:
        logger.info("[Eval] mode=thought_only")


def log_summary(m: dict[str, Any]) -> None:
    logger.info(
        "[Eval] summary action_rate={:.3f} grounding_pass_rate={:.3f} repetition_rate={:.3f} "
        "compulsion_proxy={:.3f} latency_p95_ms={}",
        m["action_rate"],
        m["grounding_pass_rate"],
        m["repetition_rate"],
        m["compulsion_proxy"],
        int(m["latency_p95_ms"]),
    )


def log_verdict(failed: list[dict[str, Any]]) -> None:
    if not failed:
        logger.info("[Eval] PASS properties_satisfied=true action_rate_may_be_zero=true")
        return
    first = failed[0]
    logger.error(
        "[Eval] FAIL properties_satisfied=false failed_scenarios={} first={}:{}",
        len(failed),
        first["scenario"],
        ",".join(first["properties"]),
    )


async def _run_all(
    suite: LoadedSuite,
    generator: LlmThoughtGenerator,
    *,
    profile: str,
    seed: int,
    mode: Mode,
    concurrency: int,
    counters: AgencyCounters,
    clock: Clock,
    work: Path | None,
) -> list[ScenarioResult]:
    gate = asyncio.Semaphore(max(1, concurrency))
    progress = Progress(len(suite.scenarios), label=f"eval {suite.name}/{profile}")
    order = list(range(len(suite.scenarios)))
    random.Random(seed).shuffle(order)
    results: list[ScenarioResult | None] = [None] * len(order)

    async def one(i: int) -> None:
        async with gate:
            sc = suite.scenarios[i]
            results[i] = await run_scenario(
                sc,
                profile=profile,
                seed=seed,
                mode=mode,
                generator=generator,
                counters=counters,
                clock=clock,
                work_dir=work,
            )
            progress.advance(sc.id)

    await asyncio.gather(*(one(i) for i in order))
    return [r for r in results if r is not None]


def run_eval(
    suite: LoadedSuite,
    generator: LlmThoughtGenerator,
    *,
    profile: str,
    mode: Mode,
    seed: int = 0,
    run_id: str | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    out_root: str | Path = DEFAULT_OUT_ROOT,
    clock: Clock = system_clock_ms,
) -> EvalOutcome:
    get_profile(profile)  # unknown profile: ValueError before any call
    rid = run_id or default_run_id(seed)
    out = run_dir(out_root, suite.name, profile, rid)
    if out.exists() and any(out.iterdir()):
        raise RunDirExists(f"run directory {out} already holds a run; pick another --run-id")
    counters = AgencyCounters(clock)
    log_mode(mode)
    started = clock()
    with tempfile.TemporaryDirectory(prefix="mcbot-eval-") as tmp:
        work = Path(tmp) if mode == "end_to_end" else None
        results = asyncio.run(
            _run_all(
                suite,
                generator,
                profile=profile,
                seed=seed,
                mode=mode,
                concurrency=concurrency,
                counters=counters,
                clock=clock,
                work=work,
            )
        )
    failed = []
    for r in results:
        r.properties = judge(r)
        bad = [name for name, p in r.properties.items() if not p["pass"]]
        if bad:
            failed.append({"scenario": r.scenario.id, "properties": bad})
    metrics = compute_metrics(results)
    log_summary(metrics)
    planning = planning_totals(results)
    if planning is not None:
        logger.info(
            "[Eval] planning fetched={fetched} acked={acked} converted={converted} skipped={skipped} "
            "errors={errors} tasks_created={tasks_created}",
            **planning,
        )
    log_verdict(failed)
    run = {"suite": suite.name, "profile": profile, "mode": mode, "seed": seed, "run_id": rid}
    summary = {
        **run,
        "suite_path": str(suite.path),
        "suite_sha256": suite.sha256,
        "line_count": suite.line_count,
        "model": model_config(generator.settings),
        "started_at": iso(started),
        "finished_at": iso(clock()),
        "concurrency": concurrency,
        "metrics": metrics,
        "planning": planning,
        "counters": counters.snapshot(),
        "budget": generator.budget.stats(),
        "verdict": "PASS" if not failed else "FAIL",
        "properties_satisfied": not failed,
        "action_rate_may_be_zero": True,
        "failed": failed,
        "scenarios": [
            {
                "id": r.scenario.id,
                "version": r.scenario.version,
                "hash": r.scenario.hash,
                "goal": r.thought.metadata.goalKey if r.thought else None,
                "convertEligible": r.convert_eligible,
            }
            for r in results
        ],
    }
    write_bundle(out, summary, [scenario_record(r, run) for r in results])
    logger.info("[Eval] artifacts dir={}", out)
    return EvalOutcome(not failed, summary, results, out)
