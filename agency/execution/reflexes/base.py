"""What the reflexes share: the hold reasons, a death's record, the counters, and the state
and helpers every reflex reads (the body taken from a direct action, a task held for a
reflex's tool calls, the hostiles near, hits taken)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from agency.clock import Clock, system_clock_ms
from agency.execution.agents.task_spec import TaskSpec
from agency.execution.combat import CombatChoice, choose_combat
from agency.execution.executor import Executor
from agency.execution.hunger import cooked_by
from agency.execution.reflexes.drowned_ways import DrownedWays
from agency.execution.settings import ReflexConfig
from agency.planning.tasks.idempotency import PREEMPTED
from agency.shelter.dig_in import in_pocket
from agency.shelter.door import DoorwayInput
from agency.shelter.models import SiteSignature
from agency.tools import ToolExecutionResult
from agency.tools.base import StopFlag, ToolContext
from agency.tools.registry import ToolRegistry
from agency.tools.results import CANCELLED
from agency.world import Vec3, WorldSnapshot

DIED = "died"  # tasks held from a death until the dropped items are back (or given up)
SAFE_MODES = ("creative", "spectator")
THREAT_LOOK_S = 1.0  # a reflex's long walk looks around this often (ReflexBase._watched)
THREAT_STOP = "a threat came up on the way"


ShelterLookup = Callable[[WorldSnapshot], SiteSignature | None]  # a verified shelter near the bot
ShelterFailed = Callable[[SiteSignature], None]  # told when the bot could not get into that shelter
NightWork = Callable[[WorldSnapshot], bool]  # is there underground work to do (the drive tick's next goal)?
# is a task held at dusk, from this inventory, work for a night dug in (it goes on down there)?
NightTask = Callable[[TaskSpec, Mapping[str, int]], bool]


class YieldsBody(Protocol):
    """A direct action holder (agency.execution.direct.DirectActions): a reflex that needs
    the body stops the direct action holding it first."""

    async def yield_body(self, why: str) -> None: ...


@dataclass(frozen=True)
class Death:
    cause: str  # the killer's kind ('zombie'), 'fall', 'starvation', ... or 'unknown'
    position: Vec3 | None  # where the items dropped
    at_ms: int  # on the reflexes' clock
    dimension: str | None = None


@dataclass(frozen=True)
class Cover:
    """The bot closed in where it stood, cornered (agency.execution.reflexes.cover)."""

    cells: tuple[tuple[int, int, int], ...]  # the blocks placed: dug again on the way out
    since: int  # on the reflexes' clock
    threat: str  # the kind it took cover from
    feet: tuple[int, int, int]  # the cell the bot stands in: moved out of it, no cover is left
    tries: int = 0  # ways out that left a block standing
    up_refused: bool = False  # the way up through the ground was refused (leave_cover_up): not tried again


@dataclass
class ReflexStats:
    ate: int = 0
    forages: int = 0  # hunts and walks for food with nothing to eat held
    fought: int = 0  # fights, close-ins and strikes
    evaded: int = 0  # creepers kept out of blast range
    retreats: int = 0
    covers: int = 0  # times the bot closed itself in, cornered (agency.execution.reflexes.cover)
    surfaced: int = 0  # swims up for air
    heads_freed: int = 0  # blocks dug from around the head (suffocating: agency.tools.head_free)
    by_kind: Counter[str] = field(default_factory=Counter)  # combat reflexes by the hostile's kind
    deaths: int = 0
    death_causes: Counter[str] = field(default_factory=Counter)
    items_recovered: int = 0
    preemptions: int = 0  # tasks paused for a reflex's tool calls (and given back)
    nights_sheltered: int = 0
    nights_underground: int = 0  # dusks met at work underground, not walked up to the shelter from
    nights_dug_in: int = 0  # nights worked underground from under the hut (agency.shelter.dig_in)
    nights_burrowed: int = 0  # nights with no shelter to go to, spent in a burrow (agency.shelter.burrow)
    sleeps: int = 0  # times the bot lay down in a shelter's bed
    log: list[dict[str, Any]] = field(default_factory=list)


class ReflexBase:
    """The state of the reflexes and what every reflex asks of it; each reflex module adds
    its own methods, and the arbiter (agency.execution.reflexes.arbiter) puts them together."""

    def __init__(
        self,
        tools: ToolRegistry,
        ctx: ToolContext,
        executor: Executor,
        config: ReflexConfig = ReflexConfig(),
        *,
        shelter_lookup: ShelterLookup | None = None,
        shelter_failed: ShelterFailed | None = None,
        night_work: NightWork | None = None,
        night_task: NightTask | None = None,
        direct: YieldsBody | None = None,
        clock: Clock = system_clock_ms,
    ):
        self.tools = tools
        # the reflexes' own stop (the context is the executor's too): a death stops their call in flight
        self.ctx = replace(ctx, stop=StopFlag())
        self.executor = executor
        self.config = config
        self.shelter_lookup = shelter_lookup
        self.shelter_failed = shelter_failed
        self.night_work = night_work
        self.night_task = night_task
        self.clock = clock
        self.stats = ReflexStats()
        self.drowned = DrownedWays()  # the surfacings of the task taken up for air (drowned_ways.py)
        self.sheltered: SiteSignature | None = None  # the shelter the bot spends this night in
        self._shelter_retry_at = 0
        self._morning_wait_logged = False
        self._underground_tonight = False  # this dusk was met underground (logged and counted once)
        self._head_in_said = False  # this dusk's "working on until" (agency.shelter.head_in) logged
        self._dig_in_tried = False  # tonight (once a night: a failed one is not tried again)
        self._dug_in = False  # the night is spent under the hut: the tasks held at dusk wait for the morning
        self._burrowed = False  # the night is spent in a burrow (no shelter to go to), tasks held
        self._night_hold = False  # tasks held for a night dug in or burrowed: given back in the morning
        self._dug_in_under: SiteSignature | None = None  # the hut the bot dug in under (climbed back into)
        self._burrow_start: tuple[int, int, int] | None = None  # where the burrow began (dug out to)
        self._burrow_at: Vec3 | None = None  # where the bot sits in its burrow (left it: the burrow is over)
        self._guarded_since: int | None = None  # since when a hostile stands by the dropped items
        self._walk_back_stops = (0, 0)  # threats on the way stopped the walk back to them: (times, first at)
        self._burrow_closed: list[tuple[int, ...]] = []  # the ground cells the burrow closed (closed again once out)
        self.reshaping_shelter = False  # digging in under the hut or climbing back into it: its floor is open
        self._burrow_retry_at = 0
        self._burrow_why = "no shelter to go to"  # said when burrowed: or no work underground (shelter.py)
        self._idle_seen: int | None = None  # underground at night, no run yet since the daemon started: since when
        self._forage_retry_at = 0
        self._eat_retry_at = 0  # after an eat that did not take (agency.execution.reflexes.eat)
        self._cook_retry_at = 0  # after a cook that failed (agency.execution.reflexes.cook)
        self._eats_not_taken = 0  # in a row: the wait before the next doubles
        self._fruitless_forages = 0  # in a row: the wait between them doubles
        self._forage_wait_said = False  # a forage waiting for the task underground said (reflexes.forage)
        self._sleep_retry_at = 0
        self._bedless: SiteSignature | None = None  # a shelter found with no bed tonight (and none held)
        self._bed_looked: SiteSignature | None = None  # a shelter looked in for a bed at dusk tonight
        self._asleep = False  # in bed at the last tick (to log the waking and why)
        self._site: SiteSignature | None = None  # the shelter choose() picked
        self._started = False
        self._acting = False
        self._ask_night_work = False  # dug in with nothing given back: the night's work to ask for
        self.death: Death | None = None  # the last death, until its items are recovered or given up
        self._hurt_at: int | None = None
        self._combat: CombatChoice | None = None  # what choose() answered, for _act
        self._out_of_reach: dict[str, int] = {}  # kind -> when an attack on it last did not reach it
        self._reach_strikes: dict[str, tuple[int, int]] = {}  # kind -> (misses in a row, when the last was)
        self._evade_failed_at: int | None = None  # the last evasion that got nowhere
        self._creeper_stuck_at: int | None = None  # the last evasion from a creeper that got nowhere
        self._quiet_since: int | None = None  # since when hostiles near are none the reflexes answer
        self._retreat_started_at: int | None = None  # when the last retreat began
        self._retreat_failed_at: int | None = None  # the last retreat that got nowhere (None: it got away)
        self._cover: Cover | None = None  # closed in where it stood, cornered: tasks held
        self._no_cover_until = 0  # after a cover that could not close every cell, or one just left
        self._cover_left_at: int | None = None  # when the last cover was left (None: the last try failed)
        self._evasions: list[int] = []  # when the recent evasions of melee hostiles were
        self._creeper_evasions: list[int] = []  # when the recent evasions of creepers (that fled) were
        self._creeper_led_at: int | None = None  # a creeper that kept coming back: led away from then
        self.direct = direct  # stopped when a reflex needs the body

    async def _watched(
        self, tool: str, args: Mapping[str, Any], start: WorldSnapshot, *, timeout_s: float | None = None
    ) -> tuple[ToolExecutionResult, str | None]:
        """A reflex's long walk (the walk back to a death's items, a forage), stopped when a
        hostile the combat reflexes would answer comes near or the bot loses health since
        `start`, looked at every THREAT_LOOK_S: the arbiter waits on the walk meanwhile (a
        respawned 26.1 bench bot at 855429f was killed by a zombie 23 s into its walk back,
        nothing answering it). The result, and why it was stopped (None: it was not)."""
        stop, acting = StopFlag(), self.ctx.stop

        async def watch() -> None:
            while True:
                await self.ctx.sleep(THREAT_LOOK_S)
                if acting.is_set():  # the bot died (_stop_acting)
                    stop.set(acting.reason or "the bot died")
                    return
                snap = await self.ctx.snapshot()
                combat = choose_combat(snap, self.config, unreachable=frozenset(self._out_of_reach))
                if combat is not None:
                    stop.set(f"{THREAT_STOP} ({combat.target.name} at {combat.target.distance:.1f} blocks)")
                    return
                if snap.health < start.health:
                    stop.set(f"{THREAT_STOP} (hurt: health {start.health:g} -> {snap.health:g})")
                    return

        watcher = asyncio.ensure_future(watch())
        try:
            extra = {} if timeout_s is None else {"timeout_s": timeout_s}
            result = await self.tools.execute(tool, dict(args), replace(self.ctx, stop=stop), **extra)
        finally:
            watcher.cancel()
        return result, (stop.reason if not result.success and stop.is_set() else None)

    def _left_the_pocket(self, snap: WorldSnapshot) -> bool:
        """Dug in, and no longer in the pocket under the hut (its night's work went on from there)."""
        site = self._dug_in_under
        if site is None or site.entrance is None:
            return False
        return not in_pocket(DoorwayInput(**doorway(site)), (snap.position.x, snap.position.y, snap.position.z))

    def _in_night_walls(self, snap: WorldSnapshot) -> bool:
        """In the night's hut, burrow or the pocket dug under the hut: not once the night's work
        has taken the bot out of that pocket (a 26.1 bench bot 20 blocks off it, in its mine at
        y 37, was refused a cover as if still in the pocket, and shot dead by a skeleton it had
        no way away from)."""
        return self._burrowed or self.sheltered is not None or (self._dug_in and not self._left_the_pocket(snap))

    def _hostile_near(self, snap: WorldSnapshot) -> bool:
        """A hostile within fight_radius: no walk away for food or dropped items."""
        return any(e.threat and e.distance <= self.config.fight_radius for e in snap.entities)

    def leaves_be(self, snap: WorldSnapshot) -> bool:
        """Every hostile near is one the reflexes leave be (the combat reflex says which)."""
        return False

    def _cooking(self) -> frozenset[str]:
        """The raw foods the task in hand cooks (agency.execution.hunger.cooked_by), running or
        paused a moment ago by a reflex (a retreat held a smelt of beef, and the bot at health
        9.6 ate the beef meanwhile: the smelt fell short and went hunting cows for 6 minutes)."""
        goal = self.executor.goal_in_hand()
        return cooked_by(*goal) if goal is not None else frozenset()

    def _lately(self, at: int | None, ms: int) -> bool:
        """Did what happened at clock reading `at` (None: never) happen within the last `ms`?"""
        return at is not None and self.clock() - at < ms

    def _under_attack(self) -> bool:
        return self._lately(self._hurt_at, self.config.under_attack_ms)

    def _stop_acting(self, why: str) -> None:
        """Stop the tool call a reflex has in flight and the rest of its tick's calls (a strike's
        evasion after it); the next tick acts again (_act_again). On a death: a 1.18.2 bench
        bot's retreat begun at health 1 went on after it died, its legs' walk taking the respawned
        bot back toward where it died, through the night, for 34 s, nothing else answering while
        it ran; a spider killed it again (seed 2571 at 69f906a)."""
        self.ctx.stop.set(why)

    def _died_meanwhile(self, result: ToolExecutionResult) -> bool:
        """Did a death stop `result`'s call (_stop_acting)? Then it says nothing of the way, the
        ground, the hostile or the shelter: no retry delay and no mark comes of it."""
        return result.error is not None and result.error.code == CANCELLED and self.ctx.stop.is_set()

    def _act_again(self) -> None:
        """A tick begins: the calls a death stopped (_stop_acting) are over; this tick's run."""
        if self.ctx.stop.is_set():
            self.ctx = replace(self.ctx, stop=StopFlag())

    async def _take_body(self, why: str) -> None:
        """A direct action (a user's or MCP client's) holding the body stops first."""
        if self.direct is not None:
            await self.direct.yield_body(why)

    @asynccontextmanager
    async def _task_held(self) -> AsyncIterator[str | None]:
        """The running task paused (through the workflow's safe stop) for a reflex's tool
        calls, and given back after; yields its id (None: no task was running)."""
        paused = await self.executor.preempt(PREEMPTED)
        if paused:
            self.stats.preemptions += 1
        try:
            yield paused
        finally:
            if paused:
                self.executor.resume_paused(PREEMPTED)

    def _log(self, entry: dict[str, Any]) -> None:
        self.stats.log = [*self.stats.log, entry][-50:]


def doorway(site: SiteSignature) -> dict[str, Any]:
    assert site.entrance is not None
    return {"door": list(site.entrance), "facing": site.facing}
