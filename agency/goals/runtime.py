"""Goal binding at run time: stores, the resolver in the thought pipeline, the executor's
goal hooks, the activation reactor fed by real events (the dusk edge, threats resolved,
materials acquired), the priority scorer, drift re-reads of finished shelters, the
nearest verified shelter for drive ticks and reflexes, and the pause/resume/cancel rules
of goal-bound tasks. The daemon's composition root (bot/runtime/wiring.py) builds one and
calls it from its jobs; everything here runs on the daemon's event loop, and world reads
go through the Body on a worker thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from loguru import logger

from agency.clock import Clock
from agency.db import StoreSource
from agency.execution.executor import Executor
from agency.game.foods import FOODS
from agency.goals import ActivationReactor, GoalKeyIndex, GoalLifecycle, GoalSync
from agency.goals.fields import release_patch
from agency.goals.identity import PROVISIONAL_SCOPE_M
from agency.goals.models import BUILD_SHELTER, HOLD_UNSAFE, GoalBinding, SiteSignature, read_binding
from agency.goals.priority import PriorityScorer
from agency.goals.router import ShelterGoalRouter
from agency.goals.run_hooks import GoalRunHooks
from agency.places.home import RANGE_M as HOME_RANGE_M
from agency.planning.tasks.events import cancelled_patch
from agency.planning.tasks.idempotency import WAITING_FOR_MORNING
from agency.planning.tasks.models import Task, TaskStatus
from agency.planning.tasks.store import TaskStore, existing_task
from agency.shelter.site_check import read_site, region_digest, verify_region
from agency.world import DUSK_START, NIGHT_END, BlockRegion, WorldSnapshot, night_approaching

REVIEW_RANGE_M = 96.0  # finished sites re-read only this close (their chunks are loaded)
# A verified shelter this near is walked back to for the night rather than a new one built
# (its planks are a morning's logs and a drive tick: at 64 m a bench bot a forage had taken 66 m
# off built a second one); within REVIEW_RANGE_M, so its verification is fresh.
SHELTER_RETURN_M = HOME_RANGE_M
UNREACHABLE_FOR_MS = 15 * 60_000  # a shelter the bot could not walk into: at most this, ended by the morning
MATERIAL_ACTIONS = frozenset({"collect", "gather", "craft", "mine"})
EVENT_LOG = 200


class GoalRuntime:
    def __init__(
        self,
        db: StoreSource,
        tasks: TaskStore,
        clock: Clock,
        *,
        last_snapshot: Callable[[], WorldSnapshot | None],
        body: Callable[[], Any] = lambda: None,
        sleep: Callable[[float], Any] = asyncio.sleep,
    ) -> None:
        self.tasks = tasks
        self.clock = clock
        self._snapshot = last_snapshot
        self._body = body  # the bot's Body once attached (None before: nothing is read)
        self.index = GoalKeyIndex(db)
        self.sync = GoalSync(db, clock=clock)
        self.events: list[dict[str, Any]] = []  # recent goal lifecycle events (API, tests)
        self.lifecycle = GoalLifecycle(tasks, clock=clock, goals=self.sync, emit=self._emit)
        self.hooks = GoalRunHooks(self.lifecycle, body, on_verified=self._remember_site, sleep=sleep)
        self.reactor = ActivationReactor(  # ticked once per executor tick (on_executor_tick)
            self.lifecycle,
            feasibility={
                HOLD_UNSAFE: lambda _t, _b: self._hostiles() == 0,
                WAITING_FOR_MORNING: lambda _t, _b: self._daylight(),  # surface work met in the dark
            },
            verify=self._verify_for_reactor,
        )
        self.scorer = PriorityScorer(tasks, clock, foods=FOODS)  # Task.urgency's one writer
        self.router = ShelterGoalRouter(
            self.index, self.lifecycle, position=self._position, verify=self.hooks.verify, clock=clock
        )
        # True while the bot reshapes a hut it is in (a dig-in opens its floor for seconds): a
        # review then would read a hole that is about to be filled and re-open the goal as a repair
        self.review_held: Callable[[], bool] = lambda: False
        self._digests: dict[str, str] = {}  # task id -> region digest at its last read
        self._fresh: dict[str, BlockRegion] = {}  # task id -> region read this review (reactor's verify)
        self._last_time: int | None = None
        self._last_hostiles = 0
        self._unreachable: dict[tuple[int, int, int], int] = {}  # a shelter's refCorner -> tried again from

    # ---- plumbing ---------------------------------------------------------------------
    def _emit(self, event: dict[str, Any]) -> None:
        self.events = [*self.events, event][-EVENT_LOG:]
        logger.info(
            "[Goals] {} task={} {}",
            event["event"],
            event["taskId"],
            {k: v for k, v in event.items() if k not in ("event", "taskId", "goalInstanceId", "at")},
        )

    def _position(self) -> tuple[float, float, float] | None:
        snap = self._snapshot()
        return None if snap is None else (snap.position.x, snap.position.y, snap.position.z)

    def _hostiles(self) -> int:
        snap = self._snapshot()
        return 0 if snap is None else snap.hostiles

    def _daylight(self) -> bool:
        snap = self._snapshot()
        return snap is not None and not night_approaching(snap)

    def _remember_site(self, task: Task, region: BlockRegion | None) -> None:
        if region is not None:
            self._digests[task.id] = region_digest(region)

    def _verify_for_reactor(self, task: Task, binding: GoalBinding) -> Any:
        region = self._fresh.pop(task.id, None)
        site = binding.anchors.siteSignature
        if region is None or site is None:
            return self.hooks.verify(task, binding)
        return verify_region(region, site, task.metadata.build)

    # ---- what drive ticks and the executor see ----------------------------------------------
    def finished_shelters(self) -> list[tuple[Task, GoalBinding]]:
        out = []
        for task_id in self.index.task_ids(BUILD_SHELTER, terminal=True):
            task = self.tasks.get_task(task_id)
            binding = read_binding(task) if task is not None else None
            if (
                task is not None
                and binding is not None
                and task.status is TaskStatus.completed
                and not binding.archived
            ):  # an archived shelter stands in another world
                out.append((task, binding))
        return out

    def shelter_places(self) -> list[dict[str, Any]]:
        """The verified shelters of this world as places (the places view lists them beside
        the tables, furnaces and beds: the goal store is their memory)."""
        out = []
        for task, binding in self.finished_shelters():
            site, last = binding.anchors.siteSignature, binding.completion.lastResult
            if site is not None:
                x, y, z = site.refCorner
                out.append(
                    {
                        "kind": "shelter",
                        "x": x,
                        "y": y,
                        "z": z,
                        "facing": site.facing,
                        "taskId": task.id,
                        "verified": bool(last is not None and last.done),
                    }
                )
        return out

    def shelter_status(self, limit: int = 5) -> list[dict[str, Any]]:
        """The newest shelter goals of this world, live ones first: where, and the verifier's
        last word (done, score, blockers) — what the dashboard shows."""
        out = []
        for terminal in (False, True):
            tasks = [t for t in map(self.tasks.get_task, self.index.task_ids(BUILD_SHELTER, terminal=terminal)) if t]
            for task in sorted(tasks, key=lambda t: t.metadata.createdAt, reverse=True):
                binding = read_binding(task)
                if binding is None or binding.archived:
                    continue
                site, last = binding.anchors.siteSignature, binding.completion.lastResult
                out.append(
                    {
                        "taskId": task.id,
                        "status": task.status.value,
                        "site": None if site is None else {"refCorner": list(site.refCorner), "facing": site.facing},
                        "verified": bool(last is not None and last.done),
                        "score": last.score if last is not None else None,
                        "blockers": list(last.blockers) if last is not None else [],
                        "lit": last.lit if last is not None else None,
                        "lastVerifiedAt": binding.completion.lastVerifiedAt,
                        "consecutivePasses": binding.completion.consecutivePasses,
                        "hold": binding.hold.reason if binding.hold is not None else None,
                    }
                )
                if len(out) >= limit:
                    return out
        return out

    def shelter_nearby(self, snap: WorldSnapshot | None) -> bool | None:
        """A verified shelter (completed goal-bound task whose last verification passed)
        the bot walks back to for the night (nearest_verified_shelter). None before the first
        snapshot."""
        if snap is None:
            return None
        return self.nearest_verified_shelter(snap) is not None

    def nearest_verified_shelter(self, snap: WorldSnapshot) -> SiteSignature | None:
        """The site of the nearest verified shelter within SHELTER_RETURN_M, leaving out one
        the bot failed to walk into tonight (shelter_unreachable) unless it is within the
        provisional scope again: the night-shelter reflex walks there, and the drive tick
        builds no other."""
        pos = (snap.position.x, snap.position.y, snap.position.z)
        now = self.clock()
        best: tuple[float, SiteSignature] | None = None
        for site in self._verified_sites():
            d = site.footprintBounds.distance_to(pos)
            if d > PROVISIONAL_SCOPE_M and self._unreachable.get(site.refCorner, 0) > now:
                continue  # left out tonight; one the bot stands near again counts (the resolver's scope)
            if d <= SHELTER_RETURN_M and (best is None or d < best[0]):
                best = (d, site)
        return best[1] if best else None

    def home(self, snap: WorldSnapshot) -> tuple[float, float] | None:
        """The (x, z) of the bot's home: the middle of the nearest verified shelter, however far
        (the explore tool's ctx.hooks["home"]: agency.places.home), so an explore `nearby` that
        starts beyond the walk back heads back; None before the first."""
        pos = (snap.position.x, snap.position.y, snap.position.z)
        site = min(self._verified_sites(), key=lambda s: s.footprintBounds.distance_to(pos), default=None)
        return None if site is None else (site.position[0], site.position[2])

    def _verified_sites(self) -> list[SiteSignature]:
        """The sites of the finished shelters whose last verification passed."""
        out = []
        for _task, b in self.finished_shelters():
            site, last = b.anchors.siteSignature, b.completion.lastResult
            if site is not None and last is not None and last.done:
                out.append(site)
        return out

    def shelter_unreachable(self, site: SiteSignature) -> None:
        """The night reflex could not get into `site`. One beyond the provisional scope (32 m)
        is left out until the morning (UNREACHABLE_FOR_MS at most): the walk there failed, and
        a shelter nearer the bot is built instead. A near one is tried again (a mob in the
        doorway, a door shut)."""
        snap = self._snapshot()
        if snap is None:
            return
        d = site.footprintBounds.distance_to((snap.position.x, snap.position.y, snap.position.z))
        if d <= PROVISIONAL_SCOPE_M:
            return
        self._unreachable[site.refCorner] = self.clock() + UNREACHABLE_FOR_MS
        logger.warning(
            "[Goals] shelter at {} not reached from {:.0f} m away: not walked to again until the morning "
            "({} min at most); a shelter nearer the bot is asked for instead",
            list(site.refCorner),
            d,
            UNREACHABLE_FOR_MS // 60_000,
        )

    def on_task_event(self, kind: str, task: Task) -> None:
        """The executor's lifecycle events: keep goals in step with plain transitions, and
        turn finished gathering/crafting into materials_acquired / subtask_completed."""
        if task.metadata.goalBinding is not None:
            self.sync.on_task_transition(None, task)
        if kind != "completed":
            return
        if task.type.lower() in MATERIAL_ACTIONS and self.reactor.materials_acquired():
            logger.info("[Goals] materials_acquired after task={}", task.id)
        if task.metadata.parentTaskId:
            self.reactor.subtask_completed(task.id)

    # ---- jobs ------------------------------------------------------------------------------------
    def observe(self, snap: WorldSnapshot | None) -> None:
        """World-clock and threat edges from the latest snapshot."""
        if snap is None:
            return
        t, prev = snap.timeOfDay, self._last_time
        crossed = prev is not None and (
            (prev < DUSK_START <= t) or (prev > t and (t >= DUSK_START or prev < DUSK_START))
        )
        if crossed:
            woken = self.reactor.dusk_approaching(verified_shelter_nearby=bool(self.shelter_nearby(snap)))
            logger.info("[Goals] dusk_approaching time={} woken={}", t, woken)
        morning = prev is not None and ((prev < NIGHT_END <= t) or (prev > t and prev < NIGHT_END))
        if morning:
            self._unreachable.clear()  # a new day: every shelter is walked back to again
        if self._last_hostiles > 0 and snap.hostiles == 0:
            self.reactor.threat_resolved()
        self._last_time, self._last_hostiles = t, snap.hostiles

    async def on_executor_tick(self) -> None:
        """The evaluation cycle, run as the executor's before_tick (once per executor tick,
        before a claim): event edges, one reactor tick (woken goals; every 60th tick the
        periodic backstop) within the activation budgets, then every live task's urgency."""
        snap = self._snapshot()
        self.observe(snap)
        report = self.reactor.tick()
        if report.reactivated or report.deferred:
            logger.info(
                "[Goals] reactor reactivated={} deferred={} over_budget={}",
                report.reactivated,
                report.deferred,
                report.over_budget,
            )
        self.scorer.evaluate(snap, shelter_nearby=self.shelter_nearby(snap))

    async def job_review(self) -> list[str]:
        """World drift near finished sites: re-read each one in range (one region read);
        a changed read is drift, re-verified through the reactor (a failure re-opens the
        goal as a repair). Unloaded reads are skipped, never judged."""
        pos, body = self._position(), self._body()
        if body is None or pos is None or not getattr(body, "connected", True) or self.review_held():
            return []
        drifted = []
        for task, binding in self.finished_shelters():
            site = binding.anchors.siteSignature
            if site is None or site.footprintBounds.distance_to(pos) > REVIEW_RANGE_M:
                continue
            region = await asyncio.to_thread(read_site, body, site)
            if None in region.palette:
                continue
            digest = region_digest(region)
            if self._digests.get(task.id) == digest:
                continue
            self._digests[task.id] = digest
            self._fresh[task.id] = region
            after = self.reactor.world_drift_detected(site.position)
            self._fresh.pop(task.id, None)
            if any(t.id == task.id and t.status is not TaskStatus.completed for t in after):
                logger.warning("[Goals] world_drift_detected task={}: shelter regressed, re-opened for repair", task.id)
                drifted.append(task.id)
        return drifted

    # ---- HTTP: pause / resume / cancel of goal-bound tasks -------------------------------------------
    async def task_command(self, task: Task, command: str, executor: Executor | None) -> Task:
        run = executor.current if executor is not None else None
        running = executor if run is not None and run.task_id == task.id else None  # the executor running this task
        if command == "pause":
            if running is not None:
                await running.preempt("manual_pause")  # hold protocol, reason manual_pause
            elif task.status in (TaskStatus.pending, TaskStatus.active, TaskStatus.paused):
                self.lifecycle.pause(task.id)  # the hard wall (replaces a softer hold)
            else:
                raise ValueError(f"task {task.id} is {task.status.value}; only pending, active or paused tasks pause")
        elif command == "resume":
            if task.status is not TaskStatus.paused:
                raise ValueError(f"task {task.id} is {task.status.value}; only paused tasks resume")
            self.lifecycle.resume(task.id)  # the only way out of manual_pause
        else:
            if task.status.terminal:
                raise ValueError(f"task {task.id} is already {task.status.value}")
            if running is not None:
                await running.stop_run("cancelled")  # no hold first: the cancel is the task's end
            current = existing_task(self.tasks, task.id)
            binding = read_binding(current)
            patch = release_patch(binding) if binding is not None and binding.hold is not None else {}
            patch = {**patch, **cancelled_patch(current)}
            after = self.tasks.set_status(task.id, TaskStatus.failed, metadata_patch=patch)
            self.sync.on_task_transition(current.status, after)
        return existing_task(self.tasks, task.id)

    def close(self) -> None:
        self.index.close()
        self.sync.close()
