"""A user's goal as it reaches the daemon (POST /api/goals, `mcbot goal`): held to the bot it
names, then checked against a snapshot read now, with the blocks in sight for a collect or
craft goal (as a drive tick reads them), and submitted (agency.goals.user_goals). Nothing
is stored for a goal that could not be checked. `obtain X` (get, acquire) is first made the
goal that gets X (agency.execution.agents.obtain), or refused as unobtainable before anything is read."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

from loguru import logger

from agency.clock import Clock
from agency.cognition.drive_tick import SIGHT_ACTIONS, sight_box
from agency.cognition.grounding import FrameFacts
from agency.execution.agents.obtain import PLANNED, Unobtainable, resolve_obtain
from agency.goal_tag import ExtractedGoal
from agency.goals.user_goals import GoalDecision, GoalRequest, GoalRequestError, refused, submit_user_goal
from agency.perception.last_seen import LastSeen
from agency.planning.converter import GoalRouter
from agency.planning.tasks.idempotency import STUCK_PENDING_TIMEOUT_MS
from agency.planning.tasks.store import TaskStore
from agency.world import BodyLost, BodyUnavailable, ConnectedBody


class GoalIntake:
    def __init__(
        self,
        name: str,
        *,
        body: Callable[[], ConnectedBody | None],
        seen: LastSeen,
        tasks: TaskStore,
        is_routable: Callable[[ExtractedGoal], bool],
        router: GoalRouter | None,
        clock: Clock,
        stuck_timeout_ms: int = STUCK_PENDING_TIMEOUT_MS,
        team_held: Callable[[], Mapping[str, int]] | None = None,
    ) -> None:
        self.name = name  # the bot this daemon drives
        self.body = body  # None until the bot's body is attached
        self.seen = seen  # a goal's fresh snapshot is the bot's latest
        self.tasks = tasks
        self.is_routable = is_routable
        self.router = router
        self.clock = clock
        self.stuck_timeout_ms = stuck_timeout_ms
        # What the fleet's other bots hold: the plan asks them for it (agency.planning.delivery),
        # so a cake whose egg a teammate holds is not refused for want of an egg.
        self.team_held = team_held

    async def submit(self, request: GoalRequest) -> GoalDecision:
        """GoalRequestError (nothing read): no goal named, or another bot named.
        BodyUnavailable: no bot to check the goal against (not connected, gone mid-read)."""
        goal = request.goal()
        if request.bot is not None and request.bot.lower() != self.name.lower():
            raise GoalRequestError(f"unknown bot {request.bot!r} (this daemon drives {self.name})")
        body = self.body()
        if body is None or not body.connected:
            raise BodyUnavailable("bot is not connected; the goal was not stored")
        try:
            snap = await asyncio.to_thread(body.snapshot)
        except BodyLost as e:
            raise BodyUnavailable(f"bot went away while checking the goal ({e}); the goal was not stored") from None
        planned = False
        if request.obtains():  # the item by whatever way gets it: collect, craft, smelt or hunt
            held = snap.held()
            for item, n in (self.team_held() if self.team_held is not None else {}).items():
                held[item] = held.get(item, 0) + n
            resolved = resolve_obtain(goal, held)
            if isinstance(resolved, Unobtainable):
                return refused(goal, "unobtainable", resolved.reason)
            logger.info("[UserGoal] obtain {} {} -> {} {}", goal.target, goal.amount, resolved.action, resolved.target)
            goal, planned = resolved, resolved.action in PLANNED
        try:
            region = await asyncio.to_thread(body.region, *sight_box(snap)) if goal.action in SIGHT_ACTIONS else None
        except BodyLost as e:
            raise BodyUnavailable(f"bot went away while checking the goal ({e}); the goal was not stored") from None
        self.seen.saw(snap)
        return submit_user_goal(
            goal,
            store=self.tasks,
            now_ms=self.clock(),
            facts=FrameFacts.from_snapshot(snap, region=region),
            is_routable=self.is_routable,
            router=self.router,
            priority=request.priority,
            stuck_timeout_ms=self.stuck_timeout_ms,
            bot=self.name if request.bot is not None else None,
            planned=planned,
            by=request.by,
        )
