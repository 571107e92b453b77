"""Result bundles (docs/contracts.md EVAL-4): artifacts/evals/<SUITE>/<PROFILE>/<RUN_ID>/summary.json and
.../scenarios/<SCENARIO_ID>.json.

A scenario file holds everything needed to reproduce and judge it without the suite:
scenario id/version/hash, the exact rendered frame and prompt, model ids and config (API
keys never), the raw and sanitized output, extractedGoal, grounding and convertEligible
decisions with reasons, timestamps and latency.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agency.cognition.llm_thoughts import thought_sampling
from agency.eval.pipeline import ScenarioResult
from agency.llm.settings import LlmSettings


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds")


def run_dir(root: str | Path, suite: str, profile: str, run_id: str) -> Path:
    return Path(root) / suite / profile / run_id


def model_config(settings: LlmSettings) -> dict[str, Any]:
    """Targets and effective thought sampling; api_key is left out on purpose."""
    targets = [
        {
            "label": t.label,
            "provider": t.provider,
            "model": t.model,
            "base_url": t.url,
            "overrides": t.overrides.model_dump(exclude_none=True),
            "sampling": thought_sampling(settings, t).model_dump(exclude_none=True),
        }
        for t in settings.targets
    ]
    return {
        "ids": [t.label for t in settings.targets],
        "targets": targets,
        "request_timeout_s": settings.request_timeout_s,
        "budgets": settings.budgets.model_dump(),
    }


def scenario_record(r: ScenarioResult, run: dict[str, Any]) -> dict[str, Any]:
    sc, gen, thought, d = r.scenario, r.generation, r.thought, r.decision
    meta = thought.metadata if thought is not None else None
    goal = meta.extractedGoal.model_dump() if meta is not None and meta.extractedGoal is not None else None
    grounding = d.grounding.as_record() if d is not None and d.grounding is not None else None
    return {
        "run": run,
        "scenario": {
            "id": sc.id,
            "version": sc.version,
            "hash": sc.hash,
            "line": sc.line,
            "stimulus": sc.stimulus,
            "description": sc.description,
            "expect": sc.expect.model_dump(),
        },
        "frame": {
            "kind": r.frame.kind,
            "profile": r.frame.profile,
            "text": r.frame.text,
            "facts": list(r.frame.facts),
            "deltas": list(r.frame.deltas),
            "memories": list(r.frame.memories),
        },
        "prompt": {"system": gen.system_prompt, "user": gen.user_prompt},
        "model": {
            "target": gen.target,
            "actual_model": gen.actual_model,
            "usage": gen.usage,
            "attempts": gen.attempts,
            "status": gen.status,
            "error": gen.error,
        },
        "output": {
            "raw": gen.text,
            "text": thought.content if thought is not None else None,
            "intent": meta.extractedIntent if meta is not None else None,
            "intentParse": meta.intentParse if meta is not None else None,
            "goalFailReason": meta.goalFailReason if meta is not None else None,
        },
        "extractedGoal": goal,
        "goalKey": meta.goalKey if meta is not None else None,
        "grounding": {
            "decision": "none" if grounding is None else ("pass" if grounding["pass"] else "fail"),
            "reason": grounding["reason"] if grounding else None,
            "detail": grounding["detail"] if grounding else "no thought: nothing to ground",
        },
        "convertEligible": {
            "value": r.convert_eligible,
            "reason": d.reason if d is not None else "no_thought",
            "routable": d.routable if d is not None else None,
        },
        "planning": r.planning,
        "properties": r.properties,
        "timestamps": {
            "started_at": iso(r.started_ms),
            "finished_at": iso(r.finished_ms),
            "started_ms": r.started_ms,
            "finished_ms": r.finished_ms,
        },
        "latency_ms": gen.latency_ms,
    }


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    tmp.replace(path)  # a reader never sees half a file


def write_bundle(out: Path, summary: dict[str, Any], records: list[dict[str, Any]]) -> None:
    for rec in records:
        write_json(out / "scenarios" / f"{rec['scenario']['id']}.json", rec)
    write_json(out / "summary.json", summary)
