"""What the executor knows of a drive tick's follow-ups (agency.execution.agents.follow_up_runs):
which goal a run is on, whether a task carries follow-ups, whether work waits in the queue
that they must give way to, and those queued as a task once it completes
(agency.execution.after_goal).

A follow-up is best effort: none starts while the bot has other work queued, and one in
flight stops when a task is queued meanwhile (a follow-up collect of logs that took its 300 s
kept two first huts of a bench waiting 2.7 minutes); its task completes, its goal being done,
and those left (the one stopped first) are queued as a task behind that work with the tick's
queued ones (a bench bot's stone sword, stopped for the night's hut, was dropped, and the bot
stood idle 110 s after the hut until the next tick).
A task of queued follow-ups gives way the same in its own goal, which is not done: it is
paused (GAVE_WAY) and goes back to the queue when the bot has nothing else to do (a queued
collect of logs whose collects timed out twice kept a first-day bench's night's hut pending
11 minutes); one queued while work waits is paused behind it from the start. While paused so it
counts as in flight (DRIVE-2: agency.planning.tasks.idempotency.waits_its_turn).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from loguru import logger

from agency.clock import Clock
from agency.execution.after_goal import FOLLOW_UP_TAG, HANDLED, chain_task, follow_up_task, origin_of, why_not_now
from agency.execution.agents.follow_up_runs import GIVE_WAY, no_hunt_here
from agency.execution.agents.runtime import AgentRuntime
from agency.execution.agents.task_spec import FollowUpSpec
from agency.execution.runs import Running, task_spec
from agency.planning.converter import DRIVE_TICK
from agency.planning.follow_up_params import AFTER, AFTER_BOT
from agency.planning.tasks.idempotency import (
    GAVE_WAY,
    WAITING_FOR_SURFACE,
    find_blocking_task,
    held_twin,
    open_to,
    waits_its_turn,
)
from agency.planning.tasks.models import NewTask, Task, TaskStatus
from agency.planning.tasks.store import TaskStore
from agency.world import night_approaching, under_cover_at_night

QUEUE_CHECK_MS = 1_000  # a follow-up in flight looks at the queue at most this often (a store read)
ASK_AGAIN_MS = 10_000  # the next tick's goals asked at a completion at most this often (NextGoals)
IDLE_ASK_MS = 30_000  # asked by a bot idle by day at most this often (ask_later)
LAST_TASKS = 64  # the newest tasks the dig-in's ask looks through for the last tick's (ticks are minutes apart)

# What the next drive tick would choose now and the chain after it (DriveJob.goals_now, wired
# by the daemon): () when none may be done now.
NextGoals = Callable[[], Awaitable[tuple[FollowUpSpec, ...]]]


class FollowUpWatch:
    def __init__(
        self,
        tasks: TaskStore,
        runtime: AgentRuntime,
        clock: Clock,
        *,
        bot: str | None = None,
        actions: frozenset[str] | None = None,
    ) -> None:
        self.tasks = tasks
        self.runtime = runtime
        self.clock = clock
        self.bot = bot
        self.actions = actions
        self._checked_ms: int | None = None  # when a follow-up in flight last looked at the queue
        self.next_goals: NextGoals | None = None  # the daemon's, with its drive tick on
        self._asked_ms: int | None = None  # when next_goals was last asked
        self._idle_asked_ms: int | None = None  # when a bot idle by day last asked (_ask_when_idle)
        self._night_looked_ms: int | None = None  # when ask_later last looked for cover at night
        # a tick's task done with no next goals given (at night, or a gate shut): asked again
        # while the bot has nothing to do (ask_later)
        self._ask_later: str | None = None
        self._queued: dict[str, bool] = {}  # the run's task: is it queued follow-ups? (one entry)

    def goal_of(self, run: Running) -> tuple[str, str]:
        """The action and target the run is on: its running follow-up's, else its task's."""
        return self.runtime.follow_up_goals.get(run.task_id, run.goal)

    def carries(self, task_id: str) -> bool:
        """Does the task carry follow-ups? Paused in them, it goes on with them when resumed,
        its goal not made again."""
        task = self.tasks.get_task(task_id)
        return task is not None and bool(task_spec(task).then)

    def work_waiting(self) -> bool:
        """Is a task pending that this executor would claim next (claim_next's filter)?"""
        return self._mine(TaskStatus.pending)

    def _mine(self, *statuses: TaskStatus) -> bool:
        """Is a task in one of these statuses that this executor would work on (claim_next's filter)?"""
        actions = {a.lower() for a in self.actions} if self.bot and self.actions else None
        return any(
            open_to(t, self.bot) and (actions is None or t.type.lower() in actions)
            for t in self.tasks.list_by_status(*statuses)
        )

    def next_turn(self) -> Task | None:
        """The oldest of this bot's tasks waiting their turn (GAVE_WAY), bound to it or held by
        it: one queued paused behind work waiting was never claimed, so no bot holds it."""
        return next((t for t in self.tasks.list_by_status(TaskStatus.paused, bot=self.bot) if waits_its_turn(t)), None)

    def give_way(self, run: Running) -> bool:
        """Give way if work waits in the queue (checked once a QUEUE_CHECK_MS at most: the
        executor ticks far more often): a follow-up in flight is stopped here; True when the
        run's task is itself queued follow-ups still on its own goal, for the executor to
        pause it (GAVE_WAY)."""
        if run.handle.stop_flag.is_set():
            return False
        in_follow_up = run.task_id in self.runtime.follow_up_goals
        if not in_follow_up and not self._queued_follow_ups(run.task_id):
            return False
        now = self.clock()
        if self._checked_ms is not None and now - self._checked_ms < QUEUE_CHECK_MS:
            return False
        self._checked_ms = now
        if not self.work_waiting():
            return False
        if not in_follow_up:
            logger.info("[Executor] task={} (queued follow-ups) gives way: other work waits in the queue", run.task_id)
            return True
        logger.info("[Executor] task={} follow-up stopped: other work waits in the queue", run.task_id)
        run.handle.stop(GIVE_WAY)
        return False

    def _queued_follow_ups(self, task_id: str) -> bool:
        """Is the task follow-ups queued as a task (after_goal)? Read once per task."""
        if task_id not in self._queued:
            task = self.tasks.get_task(task_id)
            self._queued = {task_id: task is not None and FOLLOW_UP_TAG in task.metadata.tags}
        return self._queued[task_id]

    async def queue_after(self, done: Task) -> str | None:
        """A task just completed (a goal-bound one verified): queue its follow-ups as a task
        of their own (agency.execution.after_goal), once whatever comes of it (a hut repaired
        later has old ones): those of its `then` that gave way to queued work first, then the
        tick's queued ones; the new task's id, or None when none is queued (said why)."""
        params = done.parameters or {}
        left = [f.as_dict() for f in self.runtime.given_way.pop(done.id, ())]
        if HANDLED in done.metadata.tags:
            return None
        asker, goals = params.get(AFTER_BOT), list(params.get(AFTER) or [])
        if left:  # this bot's own, whoever's tick queued the rest (another's are not added)
            goals, asker = [*left, *(goals if asker == self.bot else [])], self.bot
        elif not goals:
            if self._may_ask(done) and await self._at_night():
                if (queued := await self._night_work_now(done)) is not None:
                    return queued
                self._ask_later = done.id
                logger.info(
                    "[Executor] task={} done at night with nothing after it: the next tick's goals are asked at "
                    "daylight, or under cover once 10 s are up, if the bot has nothing to do then",
                    done.id,
                )
                return None
            goals, asker = [f.as_dict() for f in await self._asked_now(done)], self.bot
            if not goals and self._may_ask(done):
                self._ask_later = done.id  # a gate shut (hurt, hungry): asked again while idle
        if not goals:
            return None
        self.tasks.update_task_metadata(done.id, {"tags": [*done.metadata.tags, HANDLED]})
        ended = "verified" if done.metadata.goalBinding is not None else "completed"
        return await self._queue(done, goals, asker, ended)

    async def ask_while_held(self, held: Task) -> str | None:
        """A drive tick's task just held for the surface (its plan hunts, the bot underground)
        leaves the bot nothing to do until the tick: the next tick's goals are asked now, as at a
        completion with nothing after it (a 1.18.2 bench bot at ba1afe9 stood 60 s underground
        after its smelt of pork was held). At dusk or night the ask waits for the daylight, as a
        completion's (ask_later), unless the bot is under cover (_night_work_now); its own
        follow-ups are queued when it completes. The id of the task queued, or None."""
        if not self._may_ask(held):
            return None
        if await self._at_night():
            if (queued := await self._night_work_now(held, "held")) is not None:
                return queued
            self._ask_later = held.id
            return None
        goals = [f.as_dict() for f in await self._asked_now(held, "held for the surface")]
        if not goals:
            self._ask_later = held.id  # a gate shut: asked again while idle (ask_later)
            return None
        return await self._queue(held, goals, self.bot, "held")

    async def _queue(self, done: Task, goals: list[dict[str, object]], asker: str | None, ended: str) -> str | None:
        """`goals` queued as a task of their own after `done` (agency.execution.after_goal)."""
        params = done.parameters or {}
        parent = done.model_copy(update={"parameters": {**params, AFTER: goals, AFTER_BOT: asker}})
        draft, why = await self._follow_up_task(parent, asker)
        if draft is None:
            logger.info("[Executor] task={} follow-ups not queued: {}", done.id, why)
            return None
        behind = self.work_waiting()  # before it is queued itself
        task = self.tasks.add_task(draft, origin=origin_of(done))
        self.tasks.update_task_metadata(done.id, {"childTaskIds": [*done.metadata.childTaskIds, task.id]})
        if behind:  # their turn comes once that work is done (Executor.tick gives it back)
            self.tasks.update_task_metadata(task.id, {"blockedReason": GAVE_WAY})
            self.tasks.set_status(task.id, TaskStatus.paused)
        then = ", ".join(f"{f['action']} {f['target']}" for f in draft.parameters["then"])
        logger.info(
            "[Executor] task={} {}: its follow-ups queued as task={} ({} {} {}{}){}",
            done.id,
            ended,
            task.id,
            draft.type,
            draft.parameters["target"],
            draft.parameters["amount"],
            f", then {then}" if then else "",
            ", paused behind the work waiting in the queue" if behind else "",
        )
        return task.id

    async def ask_later(self) -> str | None:
        """The executor has nothing to claim: a tick's task done with nothing after it and no
        next goals given (queue_after: at night, or a drive gate shut, say the bot hurt), or held
        for the surface at night (ask_while_held), has the next tick's goals asked again, by day,
        once in ASK_AGAIN_MS at most (a 26.1 bench bot finished its iron sword dug in at 23800
        and stood 150 s of the morning until the tick; a hurt bot stood until the tick once it
        had healed). At night under cover the night's work is asked (_night_work_now): a night
        task done within ASK_AGAIN_MS of the last ask was turned away, and the bot stood until
        the tick. With none of those, a bot idle by day asks too (_ask_when_idle). The id of
        the task queued, or None."""
        if self._ask_later is None:
            return await self._ask_when_idle()
        if self._asked_ms is not None and self.clock() - self._asked_ms < ASK_AGAIN_MS:
            return None
        if await self._at_night():
            return await self._night_ask_later(self._ask_later)
        task = self.tasks.get_task(self._ask_later)
        self._ask_later = None
        if task is None:
            return None
        if task.status is TaskStatus.completed:
            return await self.queue_after(task)
        if task.status is TaskStatus.paused and task.metadata.blockedReason == WAITING_FOR_SURFACE:
            return await self.ask_while_held(task)
        return None

    async def _night_ask_later(self, task_id: str) -> str | None:
        """ask_later at night: the night's work asked for the task left to it if the bot is
        under cover (the ask is then done with); else the task waits for the daylight. Looked at
        once in ASK_AGAIN_MS at most (the executor asks at every idle tick)."""
        now = self.clock()
        if self._night_looked_ms is not None and now - self._night_looked_ms < ASK_AGAIN_MS:
            return None
        self._night_looked_ms = now
        task = self.tasks.get_task(task_id)
        if task is None:
            self._ask_later = None
            return None
        held = task.status is TaskStatus.paused and task.metadata.blockedReason == WAITING_FOR_SURFACE
        if task.status is not TaskStatus.completed and not held:
            return None
        queued = await self._night_work_now(task, "held" if held else "done")
        if queued is not None:
            self._ask_later = None
        return queued

    async def _ask_when_idle(self) -> str | None:
        """Nothing to claim by day and no task of this bot's open: the next tick's goals are
        asked now, as at a completion, of its last tick's task, once in IDLE_ASK_MS at most. The
        tick's interval counts from its last fire: a 26.1 bench bot at c64bde5 fired its dusk's
        hut, slept the night through in 35 s and stood 83 s of the morning outside its hut
        until the interval was up (the idle share of its daylight, 22 %, missed the target)."""
        if self.next_goals is None:
            return None
        now = self.clock()
        if self._idle_asked_ms is not None and now - self._idle_asked_ms < IDLE_ASK_MS:
            return None
        self._idle_asked_ms = now
        if self._mine(TaskStatus.pending, TaskStatus.active, TaskStatus.paused) or await self._at_night():
            return None
        parent = self._last_tick_task()
        if parent is None or parent.status is not TaskStatus.completed:
            return None
        goals = [f.as_dict() for f in await self._asked_now(parent, "done, the bot idle by day")]
        return await self._queue(parent, goals, self.bot, "done, the bot idle by day") if goals else None

    async def ask_for_the_night(self) -> str | None:
        """The bot just dug in under its hut for the night's work with no task given back: the
        goals the next tick would choose now (DriveJob.goals_now: under cover at night the night's
        work alone) are queued as a task at once, as after a completion, rather than waiting for
        the tick (a 1.18.2 bench bot at 30e16b4 dug in at dusk and stood 110 s in its pocket
        until the tick asked for its iron pickaxe). Of the thought of this bot's last drive-tick
        task, as a completion's are; not when a task held at dusk has the goal (the tick gives
        that one back: agency.planning.converter). Best effort: the id of the task queued, or None."""
        if self.next_goals is None or self.work_waiting():
            return None
        try:
            return await self._ask_for_the_night(self.next_goals)
        except Exception as e:  # noqa: BLE001 - best effort: the tick asks as ever
            logger.warning("[Executor] dug in: the next tick's goals not asked ({})", e)
            return None

    async def _night_work_now(self, done: Task, state: str = "done") -> str | None:
        """A tick's task done (or held for the surface) at dusk or night with the bot under
        cover (a pocket, a burrow, a cave it works the night in): the night's work is asked now
        (ask_for_the_night), not at daylight; a 1.18.2 bench bot working the night underground
        at a6804fe stood 90 s of its dusk and most of the night between 180 s ticks that each
        asked a 2-second craft (seed 7186). Once in ASK_AGAIN_MS at most; the id of the task
        queued, or None (on the surface: the shelter comes first, the ticks choose)."""
        if self.next_goals is None or self.work_waiting():
            return None
        now = self.clock()
        if self._asked_ms is not None and now - self._asked_ms < ASK_AGAIN_MS:
            return None
        try:
            if not under_cover_at_night(await self.runtime.tool_context.snapshot()):
                return None
            self._asked_ms = now
            why = f"{state} under cover at night"
            return await self._ask_for_the_night(self.next_goals, done, why=why, after=f"its task {why}")
        except Exception as e:  # noqa: BLE001 - best effort: the ticks ask as ever
            logger.warning("[Executor] task={} {} at night: the night's work not asked ({})", done.id, state, e)
            return None

    async def _ask_for_the_night(
        self,
        next_goals: NextGoals,
        parent: Task | None = None,
        *,
        why: str = "dug in for the night",
        after: str = "the dig-in under the hut",
    ) -> str | None:
        parent = parent or self._last_tick_task()
        if parent is None:
            return None
        chain = await next_goals()
        snap = await self.runtime.tool_context.snapshot()
        draft = chain_task(
            chain,
            snap.held(),
            after=after,
            may_hunt=False,
            priority=parent.priority,
            thought=parent.metadata.sourceThoughtId,
            bot=self.bot,
        )
        if draft is None:
            return None
        key = draft.metadata["goalKey"]
        now = self.clock()
        if (
            other := find_blocking_task(self.tasks, key, now, bot=self.bot) or held_twin(self.tasks, key, bot=self.bot)
        ) is not None:
            logger.info("[Executor] {}: the next tick's goals not queued: task={} has {}", why, other.id, key)
            return None
        task = self.tasks.add_task(draft, origin=origin_of(parent))
        logger.info(
            "[Executor] {}: the next tick's goals, asked now: {}; queued as task={}",
            why,
            ", ".join(f"{f.action}:{f.target}" for f in chain),
            task.id,
        )
        return task.id

    def _last_tick_task(self) -> Task | None:
        """This bot's latest drive-tick task with a thought (held for the night, or done), among
        its newest LAST_TASKS (one indexed read: a soak's store holds thousands done)."""
        mine = [
            t
            for t in self.tasks.newest(LAST_TASKS, bot=self.bot)
            if t.status in (TaskStatus.paused, TaskStatus.completed)
            and t.source == DRIVE_TICK
            and t.metadata.bot == self.bot
            and t.metadata.sourceThoughtId
        ]
        return max(mine, key=lambda t: t.metadata.updatedAt, default=None)

    def work_started(self) -> None:
        """A task was claimed or resumed: the daylight ask is for a bot with nothing to do at
        dawn, not for one idle again later (the ticks ask then)."""
        self._ask_later = None

    async def _at_night(self) -> bool:
        """Dusk or night by the body's snapshot (none read: taken as day, as ever)."""
        try:
            return night_approaching(await self.runtime.tool_context.snapshot())
        except Exception:  # noqa: BLE001 - best effort: the follow-ups are asked for as ever
            return False

    def _may_ask(self, done: Task) -> bool:
        """Is `done` a task whose completion asks the next tick's goals (this bot's tick's)?"""
        return self.next_goals is not None and done.source == DRIVE_TICK and done.metadata.bot == self.bot

    async def _asked_now(self, done: Task, state: str = "done with nothing after it") -> tuple[FollowUpSpec, ...]:
        """A drive tick's task of this bot's done with nothing after it and nothing else queued:
        what the next tick would choose now, and the chain after it (a bench bot at 592ef65
        stood 50-110 s after such a task, waiting for the tick). Asked once in ASK_AGAIN_MS at most."""
        if not self._may_ask(done) or self.next_goals is None:
            return ()
        now = self.clock()
        if (self._asked_ms is not None and now - self._asked_ms < ASK_AGAIN_MS) or self.work_waiting():
            return ()
        self._asked_ms = now
        try:
            chain = await self.next_goals()
        except Exception as e:  # noqa: BLE001 - best effort: the task is done whatever this read does
            logger.warning("[Executor] task={} done: the next tick's goals not asked ({})", done.id, e)
            return ()
        if chain:
            logger.info(
                "[Executor] task={} {}: the next tick's goals, asked now: {}",
                done.id,
                state,
                ", ".join(f"{f.action}:{f.target}" for f in chain),
            )
        return chain

    async def _follow_up_task(self, done: Task, asker: str | None) -> tuple[NewTask | None, str]:
        """The task to queue, or None and why not (agency.execution.after_goal)."""
        if asker != self.bot:
            return None, f"they are {asker or 'the daemon bot'}'s"
        try:
            snap = await self.runtime.tool_context.snapshot()
        except Exception as e:  # noqa: BLE001 - best effort: the task is done whatever this read does
            return None, f"no snapshot ({e})"
        if why := why_not_now(snap):
            return None, f"{why}; they wait for their ticks"
        draft = follow_up_task(done, snap.held(), may_hunt=no_hunt_here(snap) is None)
        if draft is None:
            return None, "every one is held"
        key = draft.metadata["goalKey"]
        blocking = find_blocking_task(self.tasks, key, self.clock(), bot=self.bot)
        if blocking is not None:
            return None, f"task={blocking.id} has {key} (DRIVE-2)"
        return draft, ""
