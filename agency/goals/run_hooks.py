"""Goal-bound tasks inside the executor and the builder's tools.

GoalRunHooks is the executor's GoalHooks: completion only through the verifier's stability
window (two passes on real region reads), pauses through the hold protocol (holdWitness
verified only at a checkpoint boundary), releases through the lifecycle (the manual-pause
wall holds), and a conservative rescan before resuming after an unverified hold.
It is also the shelter tools' ctx.hooks["shelter"] (anchor, module progress) and the
runtime's plan_facts (what a repair must still bring).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from loguru import logger

from agency.execution.workflows.models import WorkflowRunResult
from agency.goals import hold_protocol
from agency.goals.identity import anchor_goal
from agency.goals.lifecycle import GoalLifecycle, ManualPauseWallError
from agency.goals.models import GoalBinding, VerificationResult, read_binding
from agency.planning.tasks.models import Task, TaskStatus
from agency.shelter.blueprint import ShelterBlueprint
from agency.shelter.site_check import blueprint_from, missing_blocks, read_site, stands, verify_region
from agency.world import BlockRegion, Body

if TYPE_CHECKING:  # the run records import the agents; only SafeStop is needed here
    from agency.execution.runs import SafeStop

SHELTER_TARGETS = frozenset({"basic_shelter", "shelter"})
STABILITY_S = 1.0  # between the two verification passes: a transient pass must not count
MAX_REPAIRS = 2  # fresh build runs after a failed verification before the task fails
Sleep = Callable[[float], Awaitable[None]]
Verified = Callable[[Task, BlockRegion | None], None]


def verify_task(body: Body, task: Task, binding: GoalBinding) -> tuple[VerificationResult, BlockRegion | None]:
    site = binding.anchors.siteSignature
    if site is None:  # never anchored: nothing stands anywhere yet
        return VerificationResult(done=False, score=0.0, blockers=["not_anchored"]), None
    region = read_site(body, site)
    return verify_region(region, site, task.metadata.build), region


class GoalRunHooks:
    def __init__(
        self,
        lifecycle: GoalLifecycle,
        body: Callable[[], Body | None],
        *,
        stability_s: float = STABILITY_S,
        max_repairs: int = MAX_REPAIRS,
        sleep: Sleep = asyncio.sleep,
        on_verified: Verified | None = None,
    ) -> None:
        self.lifecycle = lifecycle
        self.store = lifecycle.store
        self._body = body
        self.stability_s = stability_s
        self.max_repairs = max_repairs
        self._sleep = sleep
        self._on_verified = on_verified

    def body(self) -> Body:
        b = self._body()
        if b is None:
            raise RuntimeError("no body attached: the world cannot be read")
        return b

    # ---- executor: GoalHooks -------------------------------------------------------
    def owns(self, task: Task) -> bool:
        return task.metadata.goalBinding is not None

    def verify(self, task: Task, binding: GoalBinding) -> VerificationResult:
        """The resolver's and reactor's verifier: one region read of footprint + 8."""
        return verify_task(self.body(), task, binding)[0]

    async def complete(self, task: Task, result: WorkflowRunResult) -> str:
        """The workflow ran to its end; the WORLD decides: completed after two consecutive
        passes, else a fresh build run (which skips what stands) up to max_repairs."""
        last = VerificationResult(done=False, blockers=["not_verified"])
        for attempt in range(2):
            if attempt:
                await self._sleep(self.stability_s)
            task = self.store.get_task(task.id) or task
            binding = read_binding(task)
            assert binding is not None
            try:
                last, region = await asyncio.to_thread(verify_task, self.body(), task, binding)
            except Exception as e:  # noqa: BLE001 - no world to judge (disconnected): judge later
                logger.warning("[Goals] verify task={} could not read the site: {}", task.id, e)
                return "unverified"  # stays active: the next run re-checks and verifies again
            task = self.lifecycle.record_verification(task.id, last)
            verified = read_binding(task)
            assert verified is not None  # a goal-bound task keeps its binding
            logger.info(
                "[Goals] verify task={} pass={} done={} blockers={}",
                task.id,
                verified.completion.consecutivePasses,
                last.done,
                last.blockers,
            )
            if task.status is TaskStatus.completed:
                if self._on_verified is not None:
                    self._on_verified(task, region)
                return "completed"
            if not last.done:
                break
        build = dict(task.metadata.build or {})
        build["repairAttempts"] = build.get("repairAttempts", 0) + 1
        if build["repairAttempts"] > self.max_repairs:
            reason = f"shelter not verified after {self.max_repairs} repair runs: {', '.join(last.blockers)}"
            solver = {**task.metadata.solver, "failureReason": reason}
            self.store.set_status(task.id, TaskStatus.failed, metadata_patch={"build": build, "solver": solver})
            return "failed"
        self.store.update_task_metadata(task.id, {"build": build})  # stays active: the next tick re-runs
        return "repairing"

    def hold(self, task: Task, reason: str, stop: SafeStop) -> Task:
        """The executor already stopped the run and measured the stop; the protocol judges
        it against the 3-step / 5 s budget and writes the witness and the hold."""
        build = task.metadata.build or {}
        report = stop.report
        result = hold_protocol.SafeStopResult(
            at_checkpoint=report is not None and report.atCheckpointBoundary,
            last_step_id=(report.lastStepId if report is not None else None) or build.get("lastStepId"),
            module_cursor=build.get("moduleCursor"),
            completed=report is not None and not stop.timed_out,
            steps_used=stop.steps_used,
        )
        outcome = hold_protocol.hold_after_stop(self.lifecycle, task.id, result, stop.elapsed_ms, reason=reason)
        logger.info("[Goals] hold task={} reason={} witness={}", task.id, reason, outcome.witness.model_dump())
        return outcome.task

    def release(self, task: Task) -> Task:
        try:
            return self.lifecycle.reactivate(task.id)
        except ManualPauseWallError:
            return task  # only POST /api/tasks/{id}/resume lifts a manual pause

    def before_start(self, task: Task) -> bool:
        """After an unverified hold, rescan: re-verify module N-1 in the world before
        trusting the cursor. True = it no longer stands: run the build afresh (every module
        re-reads the world and places only what is missing)."""
        binding = read_binding(task)
        bp = blueprint_from(task.metadata.build)
        if binding is None or bp is None or binding.hold is not None:
            return False
        plan = hold_protocol.plan_resume(binding, module_cursor=(task.metadata.build or {}).get("moduleCursor"))
        record = [h.model_dump() for h in binding.holdHistory[-1:]]  # the hold this rescan answers
        if not plan.conservative or (task.metadata.build or {}).get("rescanned") == record:
            return False
        region = read_site(self.body(), bp.site)
        start = hold_protocol.resume_module(plan, lambda i: _module_stands(bp, region, i))
        self.store.update_task_metadata(
            task.id, {"build": {**(task.metadata.build or {}), "rescanned": record, "rescanStart": start}}
        )
        logger.info(
            "[Goals] conservative rescan task={} cursor={} verified={} -> start module {}",
            task.id,
            plan.start_module,
            plan.verify_first,
            start,
        )
        return start < plan.start_module

    # ---- tools: ctx.hooks["shelter"] ----------------------------------------------------
    def anchored_site(self, task_id: str) -> dict[str, Any] | None:
        task = self.store.get_task(task_id)
        binding = read_binding(task) if task is not None else None
        build = task.metadata.build if task is not None else None
        if binding is None or binding.anchors.siteSignature is None or not build or "origin" not in build:
            return None
        keys = ("origin", "facing", "wallBlock", "doorBlock", "lightBlock")
        return {k: build[k] for k in keys if k in build}

    def anchor(self, task_id: str, blueprint: ShelterBlueprint, materials: dict[str, Any]) -> None:
        anchor_goal(self.store, task_id, blueprint.site)  # phase A -> B, once
        build = {
            "template": blueprint.template,
            "origin": list(blueprint.site.refCorner),
            "facing": blueprint.site.facing,
            **materials,
            "totalModules": blueprint.total_modules,
            "moduleCursor": 0,
            "lastWorkedAt": self.lifecycle.clock(),
        }
        self.store.update_task_metadata(task_id, {"build": build})
        logger.info("[Goals] anchored task={} site={} facing={}", task_id, build["origin"], build["facing"])

    def module_done(self, task_id: str, index: int, total: int, name: str) -> None:
        task = self.store.get_task(task_id)
        if task is None:
            return
        build = {
            **(task.metadata.build or {}),
            "moduleCursor": index,
            "totalModules": total,
            "lastStepId": f"module-{name.replace('_', '-')}",
            "lastWorkedAt": self.lifecycle.clock(),
        }
        self.store.update_task_metadata(task_id, {"build": build})

    # ---- runtime: plan_facts --------------------------------------------------------------
    def plan_facts(self, spec: Any) -> dict[str, Any]:
        """For a shelter already anchored: only the blocks still missing there."""
        if spec.action.lower() != "build" or spec.target not in SHELTER_TARGETS or not spec.id:
            return {}
        task = self.store.get_task(spec.id)
        bp = blueprint_from(task.metadata.build) if task is not None else None
        if bp is None or task is None:
            return {}
        try:
            need = missing_blocks(read_site(self.body(), bp.site), bp)
        except Exception as e:  # noqa: BLE001 - plan for the whole hut; modules skip what stands
            logger.warning("[Goals] plan facts for task={}: site unreadable ({}); planning full materials", spec.id, e)
            return {}
        build = task.metadata.build or {}
        return {"needed": dict(need), "wallBlock": build.get("wallBlock"), "doorBlock": build.get("doorBlock")}


def _module_stands(bp: ShelterBlueprint, region: BlockRegion, index: int) -> bool:
    module = bp.modules[index]
    return all(stands(module.name, b, region.block_at(x, y, z)) for x, y, z, b in module.placements)
