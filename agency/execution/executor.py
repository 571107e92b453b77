"""The executor: claims one pending task at a time, runs it as an agent's workflow, reports
progress into the task, and ends it completed / failed / unplannable with a reason (how a
task's status changes when its run ends or rests: agency.execution.task_endings).

It is ticked by the daemon (one owner, the event loop). Each tick first runs the per-tick
evaluation it was given (`before_tick`: the goals' activation reactor and urgency scoring),
so reactor cadences count executor ticks and a claim sees this tick's urgencies. A
running workflow is a handle;
`preempt()` brings it to a safe stop and pauses the task with a reason, `resume_paused()`
puts such tasks back in the queue; an `active` task found on a tick with no run in flight
(the daemon was killed mid-task) is resumed from its last checkpoint.

A run of a plan made from what the bot holds (a craft, smelt or gather plan) that fails on a
step the world refused (nothing found, no progress, a timeout) is planned afresh from what the
bot holds now, for what is still short of the goal (AgentRuntime.run_task, replan); a
goal-bound build's gets a fresh build plan (it brings what is missing now and skips what
stands); unless the same step failed the same way after the last one, at most MAX_STEP_REPLANS
times per task (agency.execution.replans; counted in its `replanned` events, so a restart does
not reset them): what the first run got is not fetched again, and the new plan's steps look
further from where the bot now is (a collect tunnels on, a hunt explores).

A run that fails on surface work met under cover at night is held for the morning instead
of failed (agency.execution.morning_hold). A drive tick's craft or smelt whose plan hunts,
claimed underground, is held for the surface (WAITING_FOR_SURFACE) and given back on the
first tick the bot is up there again (agency.execution.surface_hold).

A run that ends because the body went away (BODY_LOST from a tool, or any failure seen
while the body is not connected) did not fail on its merits: its task is held as
`disconnected` like a preemption (an unverified witness: the goal side rescans on resume)
and put back in the queue on the first tick the body is ready again. When the bridge itself
went down during the run (its node process died, or was killed as wedged; `bridge`) while
this bot had actions running on it, the task records it, and the second time it is failed
as poison instead of held: resumed, it would take the bridge down again
(agency/planning/tasks/poison.py). A bot that was idle then is only held.

A task a drive tick gave follow-ups (parameters.then) runs them after its goal, as runs of
its own; those after them (parameters.after; all of a goal-bound one's, the night's hut) are
queued as a task once it completes, a goal-bound one verified (agency.execution.after_goal).
What the executor knows of them (the goal in hand, giving way to queued work, queueing) is
agency.execution.follow_up_watch; a task of queued follow-ups that gives way is paused
(GAVE_WAY) and put back in the queue when nothing else is.

An executor works for one bot (`bot`) when several share the task store: it claims tasks
bound to that bot or to none, and resumes and puts back in the queue only the tasks that
bot holds (metadata.heldBy), never another bot's. With no bot (one bot's daemon) every
task is its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from loguru import logger

from agency.clock import Clock
from agency.execution.agents.runtime import AgentRuntime
from agency.execution.bridge_watch import BridgeWatch
from agency.execution.follow_up_watch import FollowUpWatch
from agency.execution.morning_hold import MorningHold
from agency.execution.replans import Replanner
from agency.execution.run_progress import report_progress
from agency.execution.run_stops import RunStops
from agency.execution.runs import (
    DISCONNECTED,
    ExecutorStats,
    GoalHooks,
    Running,
    SafeStop,
    body_lost,
    run_waits_for_morning,
    run_waits_for_surface,
    task_goal,
    task_spec,
)
from agency.execution.surface_hold import SurfaceHold
from agency.execution.task_endings import TaskEndings
from agency.planning.tasks.idempotency import GAVE_WAY, PREEMPTED, WAITING_FOR_MORNING, WAITING_FOR_SURFACE
from agency.planning.tasks.models import Task, TaskStatus
from agency.planning.tasks.store import TaskStore
from agency.tools.results import WAITS_FOR_MORNING

__all__ = ["DISCONNECTED", "Executor", "SafeStop"]  # the hold reason and stop record callers name

# A task a reflex takes the bot off (a fight, a retreat) this many times in a row before a step of
# its run is done is given up: a 26.1 bench bot's diamond pickaxe, deep among caves, was preempted
# nine times by a creeper, a skeleton and a spider over 8 minutes of daylight and planned afresh each
# time, no step done; failed, the drive tick's retry backoff explores new ground first. Counted over
# UNTOUCHED_SPAN_MS at least: a fight with meals between holds a task six times in a minute.
UNTOUCHED_COMEBACKS = 6
UNTOUCHED_SPAN_MS = 180_000
GIVEN_UP_KINDS = frozenset({"drive-tick", "thought"})  # a user's task or goal is the user's to end
ENDED_UNSTOPPED = SafeStop(None, steps_used=0, elapsed_ms=0, timed_out=False)  # a run held that ended with no stop


class Executor(RunStops):
    def __init__(
        self,
        tasks: TaskStore,
        runtime: AgentRuntime,
        clock: Clock,
        *,
        plannable: Callable[[Task], str | None] | None = None,
        on_lifecycle: Callable[[str, Task], None] | None = None,
        goals: GoalHooks | None = None,
        before_tick: Callable[[], Awaitable[None]] | None = None,
        bot: str | None = None,
        actions: frozenset[str] | None = None,
        bridge: BridgeWatch | None = None,
    ) -> None:
        self.tasks = tasks
        self.bot = bot
        self.actions = actions  # a bot working as some agent profiles only claims their actions (None = any)
        self.runtime = runtime
        self.clock = clock
        self.plannable = plannable or self._has_workflow
        self.goals = goals
        self.before_tick = before_tick
        self.bridge = bridge  # None: no bridge to lose (a fake or replayed body): no task is poison
        self.current: Running | None = None
        self._finishing: Running | None = None  # a run that ended, its goal being verified (_finish)
        self._preempted: tuple[str, tuple[str, str]] | None = None  # (task, goal) of the run last paused
        self._came_back: set[str] = set()  # tasks given back after a hold, not yet started again (_start)
        self._preempted_back: set[str] = set()  # those of them held by a reflex's moment (PREEMPTED)
        # the task last come back with no step done: how often in a row, since when
        self._untouched: tuple[str, int, int] = ("", 0, 0)
        self.follow_ups = FollowUpWatch(tasks, runtime, clock, bot=bot, actions=actions)
        self.replanner = Replanner(tasks, runtime, clock, goals, self.follow_ups.work_waiting)
        self.stats = ExecutorStats()
        self.morning = MorningHold(clock)
        self.surface = SurfaceHold(
            clock,
            held=lambda: self.held(WAITING_FOR_SURFACE),
            give_back=lambda only: self.resume_paused(WAITING_FOR_SURFACE, only=only),
            snapshot=lambda: self.runtime.tool_context.snapshot(),
        )
        self.endings = TaskEndings(
            tasks,
            clock,
            self.stats,
            goals=goals,
            replanner=self.replanner,
            follow_ups=self.follow_ups,
            on_lifecycle=on_lifecycle,
        )

    @property
    def waiting_for_morning(self) -> bool:
        """A task of this bot's is held for the morning (the reflexes give it back by day)."""
        return self.morning.waiting

    @waiting_for_morning.setter
    def waiting_for_morning(self, value: bool) -> None:
        self.morning.waiting = value

    def running_goal(self) -> tuple[str, str] | None:
        """The action and target of the task whose workflow is in flight, if any (no store
        read: the reflexes ask on every tick): a drive tick's follow-up while one runs."""
        return self.follow_ups.goal_of(self.current) if self.current is not None else None

    def work_waiting(self) -> bool:
        """Is a task pending that this executor would claim next?"""
        return self.follow_ups.work_waiting()

    def goal_in_hand(self) -> tuple[str, str] | None:
        """The running goal, else that of the run paused last while its task waits to resume
        (paused, or pending again): a smelt of beef preempted by a retreat is still what the
        beef held is for. A task cancelled or failed meanwhile has none (a store read, only
        while nothing runs after a preempt)."""
        if self.current is not None:
            return self.follow_ups.goal_of(self.current)
        if self._preempted is None:
            return None
        task_id, goal = self._preempted
        task = self.tasks.get_task(task_id)
        if task is None or task.status not in (TaskStatus.paused, TaskStatus.pending):
            self._preempted = None
            return None
        return goal

    def finishing_goal(self) -> tuple[str, str] | None:
        """The action and target of the task whose workflow ended and whose goal is being
        verified (a second or so, the task not yet completed): a hut about to count as the
        night's shelter."""
        if self._finishing is not None:
            return self._finishing.goal
        if self.current is not None and self.current.handle.task.done():
            return self.current.goal  # ended, not yet picked up by a tick (up to its interval)
        return None

    # ---- routing -----------------------------------------------------------------------
    def _has_workflow(self, task: Task) -> str | None:
        """None when some agent can carry the task out, else why not."""
        spec = task_spec(task)
        profile = self.runtime.choose_agent(spec)
        if profile.owns(spec.action) and spec.action.lower() in profile.workflows:
            return None
        return f"no agent has a workflow for action '{task.type}'"

    # ---- the tick ----------------------------------------------------------------------
    async def tick(self, *, can_work: bool = True, held: bool = False) -> str:
        """One step: finish a run that ended, else (if the bot can work) claim the next task.
        `held`: the bot's one body is busy with something else (a reflex acting, a night in a
        shelter), so nothing is claimed and queued tasks are waiting their turn, not stuck.
        Returns what happened, for logs and tests."""
        self.stats.last_tick_ms = self.clock()
        await self._before_tick()
        if self.current is not None:
            self.stats.last_busy_ms = self.stats.last_tick_ms
            if not self.current.handle.task.done():
                report_progress(self.tasks, self.runtime.checkpoints, self.current.task_id)
                if self.follow_ups.give_way(self.current):
                    await self.preempt(GAVE_WAY)
                    return f"paused:{GAVE_WAY}"
                return "running"
            run, self.current = self.current, None
            result = await run.handle.result()
            if body_lost(result, can_work):
                if self._poisoned(run):
                    return "failed:poison"
                self.endings.pause(run.task_id, DISCONNECTED, ENDED_UNSTOPPED)
                return f"paused:{DISCONNECTED}"
            if run_waits_for_morning(result):
                why = next(e.message for e in result.errors if e.code == WAITS_FOR_MORNING)
                logger.info("[Executor] task={} waits for the morning ({})", run.task_id, why)
                self.endings.pause(run.task_id, WAITING_FOR_MORNING, ENDED_UNSTOPPED)
                self.morning.held()
                return f"paused:{WAITING_FOR_MORNING}"
            if (up := run_waits_for_surface(result)) is not None:
                logger.info("[Executor] task={} waits for the surface ({})", run.task_id, up)
                self.endings.pause(run.task_id, WAITING_FOR_SURFACE, ENDED_UNSTOPPED)
                self.surface.held()
                if (task := self.tasks.get_task(run.task_id)) is not None:
                    await self.follow_ups.ask_while_held(task)
                return f"paused:{WAITING_FOR_SURFACE}"
            if (replaced := self.replanner.replan(run, result)) is not None:
                self.current = replaced
                return "replanned"
            self._finishing = run
            try:
                await self.endings.finish(run, result)
            finally:
                self._finishing = None
            return f"finished:{result.status}"
        if held:
            self.stats.last_busy_ms = self.stats.last_tick_ms
            return "held"
        if not can_work:
            return "waiting"
        self.resume_paused(DISCONNECTED)  # the body is back: work its loss interrupted goes first
        # no morning seen (a bot without reflexes): the night is long over
        if self.morning.overdue() and (given := self.resume_paused(WAITING_FOR_MORNING)):
            logger.info("[Executor] {} task(s) held for the morning given back after 12 min or more", len(given))
        await self.surface.give_back_on_the_surface()
        interrupted = self._interrupted()
        if interrupted is not None:
            return self._start(interrupted, resumed=True)
        # most urgent pending task, oldest first among equals
        claimed = self.tasks.claim_next(bot=self.bot, actions=self.actions if self.bot else None)
        if claimed is None and self._give_back_a_turn():
            claimed = self.tasks.claim_next(bot=self.bot, actions=self.actions if self.bot else None)
        if claimed is None and await self.follow_ups.ask_later() is not None:
            claimed = self.tasks.claim_next(bot=self.bot, actions=self.actions if self.bot else None)
        if claimed is None:
            return "idle"
        return self._start(claimed, resumed=False)

    async def _before_tick(self) -> None:
        if self.before_tick is None:
            return
        try:
            await self.before_tick()
        except Exception as e:  # noqa: BLE001 - a failed evaluation must not stop the executor
            logger.opt(exception=e).warning("[Executor] per-tick evaluation failed: {}", e)

    def _interrupted(self) -> Task | None:
        """An active task of this bot's with no run in flight was interrupted (crash,
        restart): it is resumed before anything new is claimed."""
        active = self._mine(TaskStatus.active)
        if not active and self.bot is not None:
            self._requeue_unheld()
        return active[0] if active else None

    def _requeue_unheld(self) -> None:
        """An active task no bot holds was left by a daemon of one bot (before a fleet was
        configured): no bot would ever resume it as its own, so it goes back to the queue,
        where a bot claims it and resumes from its checkpoint."""
        for task in self.tasks.list_by_status(TaskStatus.active):
            if task.metadata.heldBy is None:
                self.tasks.set_status(task.id, TaskStatus.pending)
                logger.info(
                    "[Executor] task={} goalKey={} active with no bot holding it: back to pending",
                    task.id,
                    task.metadata.goalKey,
                )

    def held_for_morning(self) -> list[str]:
        """This bot's tasks paused until the morning (WAITING_FOR_MORNING), newest first."""
        held = [t for t in self._mine(TaskStatus.paused) if t.metadata.blockedReason == WAITING_FOR_MORNING]
        return [t.id for t in sorted(held, key=lambda t: -t.metadata.updatedAt)]

    def held(self, *reasons: str) -> list[Task]:
        """This bot's tasks paused for any of `reasons`."""
        return [t for t in self._mine(TaskStatus.paused) if t.metadata.blockedReason in reasons]

    def _mine(self, status: TaskStatus) -> list[Task]:
        """This bot's tasks in `status` (the ones it holds); with no bot, every one."""
        if self.bot is None:
            return self.tasks.list_by_status(status)
        return self.tasks.held_by(self.bot, status)

    def _start(self, task: Task, *, resumed: bool) -> str:
        """Run an active task: one the store just claimed (pending -> active) or an
        interrupted one (resumed). One no agent can carry out becomes unplannable."""
        why_not = self.plannable(task)
        if why_not:
            self.tasks.set_status(task.id, TaskStatus.unplannable, metadata_patch={"blockedReason": why_not})
            self.stats.unplannable += 1
            logger.warning(
                "[Executor] unplannable task={} goalKey={} reason={}", task.id, task.metadata.goalKey, why_not
            )
            self.endings.lifecycle("unplannable", task.id)
            return "unplannable"
        if not resumed:
            self.stats.claimed += 1
        # After an unverified hold the goal side rescans the site; True = start afresh.
        fresh = self.goals.before_start(task) if self.goals is not None and self.goals.owns(task) else False
        replan = False
        if task.id in self._came_back:
            self._came_back.discard(task.id)
            # held (its turn, the night) before a step of it was done: the work done meanwhile may
            # have used what its plan counted on (a 1.18.2 bench bot's `collect log 8`, planned as
            # "have 21" with 13 held, came back after the hut had taken all 21 and gathered 19
            # until dusk); planned again from what the bot holds now, what its step got before
            # the hold still counts (AgentRuntime._still_short)
            preempted, self._preempted_back = task.id in self._preempted_back, self._preempted_back - {task.id}
            if not fresh and self.runtime.untouched(task_spec(task)):
                if preempted and self._given_up_untouched(task.id):
                    self._untouched = ("", 0, 0)
                    return "failed"
                logger.info("[Executor] task={} comes back with no step of its run done: planned afresh", task.id)
                replan = True
            else:
                self._untouched = ("", 0, 0)  # a step done since: the count starts again
        agent = self.runtime.choose_agent(task_spec(task)).id
        logger.info(
            "[Executor] {} task={} goalKey={} agent={} ({} -> active)",
            "resumed" if resumed else "claimed",
            task.id,
            task.metadata.goalKey,
            agent,
            "active" if resumed else TaskStatus.pending.value,
        )
        spec = self.replanner.fresh_spec(task) if replan else task_spec(task)
        self.follow_ups.work_started()
        handle = self.runtime.start_task(spec, fresh=fresh, replan=replan, waiting=self.follow_ups.work_waiting)
        mark = self.bridge.mark() if self.bridge is not None else 0
        self.current = Running(task.id, handle, self.clock(), agent, mark, task_goal(task))
        self._preempted = None
        self.endings.lifecycle("resumed" if resumed else "claimed", task.id)
        return "resumed" if resumed else "claimed"

    def _given_up_untouched(self, task_id: str) -> bool:
        """One more comeback of `task_id` with no step done (another task's, or one with a step
        done, starts the count again); given up at UNTOUCHED_COMEBACKS in a row spread over
        UNTOUCHED_SPAN_MS at least (a fight with meals between holds a task often in a minute)."""
        last, count, since = self._untouched
        now = self.clock()
        self._untouched = (task_id, count + 1, since) if last == task_id else (task_id, 1, now)
        if self._untouched[1] < UNTOUCHED_COMEBACKS or now - self._untouched[2] < UNTOUCHED_SPAN_MS:
            return False
        why = f"taken off it by a reflex {self._untouched[1]} times in a row before a step of it was done"
        return self.give_up(task_id, why)

    def give_up(self, task_id: str, reason: str) -> bool:
        """A drive tick's (or a thought's) task that keeps going nowhere fails with `reason`.
        A user's task is the user's to end, one whose goal is done, in its follow-ups, is not
        failed for them, and a running one is stopped first: False, nothing done."""
        task = self.tasks.get_task(task_id)
        if task is None or task.metadata.origin is None or task.metadata.origin.kind not in GIVEN_UP_KINDS:
            return False
        if self.runtime.in_follow_ups(task_id) or (self.current is not None and self.current.task_id == task_id):
            return False  # its goal made; or running (a run is stopped first, preempt)
        return self.endings.give_up(task_id, reason)

    def resume_paused(self, reason: str, only: Callable[[Task], bool] | None = None) -> list[str]:
        """Put this bot's tasks paused for `reason` back in the queue (paused -> pending); with
        `only`, those of them it takes."""
        if reason == WAITING_FOR_MORNING and only is None:
            self.morning.waiting = False
        out = []
        for task in self._mine(TaskStatus.paused):
            if task.metadata.blockedReason == reason and (only is None or only(task)):
                self.endings.give_back(task, reason)
                out.append(task.id)
        if reason != DISCONNECTED:  # a bridge that went down: the world is as the run left it
            self._came_back.update(out)
        self._came_back &= {t.id for t in self._mine(TaskStatus.pending)} | set(out)  # none left behind
        if reason == PREEMPTED:
            self._preempted_back.update(out)
        self._preempted_back &= self._came_back
        return out

    def hold_turns(self, reason: str) -> list[str]:
        """This bot's tasks waiting their turn (GAVE_WAY, no goal's) held for `reason` instead:
        the night's hold, so that what is given back to the bot dug in under its hut is the
        night's work alone (a 26.1 bench bot dug in, claimed its collect of logs waiting its
        turn, walked up for a tree and spent the night in the hut). Their ids."""
        held = []
        for task in self._mine(TaskStatus.paused):
            if task.metadata.blockedReason == GAVE_WAY and not self.endings.goal_bound(task):
                self.tasks.update_task_metadata(task.id, {"blockedReason": reason})
                held.append(task.id)
        return held

    def hold_unrun(self, reason: str) -> list[str]:
        """This bot's active tasks with no run in flight held for `reason`: a goal the goal
        side reopened (goal_reopened sets its task active) while the reflexes hold the body for
        the night would stand active and untouched until the morning (a 1.18.2 bench bot's
        reopened hut, 11 minutes, judged a wedge); held with the night's tasks, it is given back
        with them. Their ids."""
        # the run in flight, and one whose goal is being verified (its task completes in a second)
        busy = {run.task_id for run in (self.current, self._finishing) if run is not None}
        held = []
        for task in self._mine(TaskStatus.active):
            if task.id not in busy:
                self.endings.pause(task.id, reason, ENDED_UNSTOPPED)
                held.append(task.id)
        return held

    def _give_back_a_turn(self) -> bool:
        """Nothing else to claim: the oldest task that gave way to queued work goes back in the
        queue, one at a time (given back together, the first claimed would give way again to
        the others at once). True when one did."""
        task = self.follow_ups.next_turn()
        if task is not None:
            self.endings.give_back(task, GAVE_WAY)
            self._came_back.add(task.id)
        return task is not None
