"""Test doubles shipped with the package: FakeBody, a tiny block world implementing the
Body protocol (not a Mineflayer mock: it keeps blocks, an inventory, creatures and long
actions that finish after a number of polls), and FakeTime, an injected clock with an async
sleep that moves it.

Used by the agent, tool, executor and daemon unit tests; usable by benches and replays alike.
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from dataclasses import dataclass
from typing import Any

from agency.blocks import is_door, is_liquid, is_replaceable, is_solid
from agency.clock import FrozenClock
from agency.game.recipes import recipe_for
from agency.names import canonical
from agency.tools.climbing import FALLING
from agency.tools.craft_planner import taking_order
from agency.world import (
    ActionState,
    ActionStatus,
    BlockRegion,
    BodyError,
    BodyEvent,
    EntityInfo,
    InventoryItem,
    Vec3,
    WorldSnapshot,
)

GROUND_Y = 64  # feet level; y < 64 is dirt
# What eating restores here (the JS consume picks the held food restoring the most).
FOOD_POINTS = {"cooked_beef": 8, "bread": 5, "apple": 4, "carrot": 3, "rotten_flesh": 4}


@dataclass
class Mob:
    """A creature standing still at x, z on the ground (hostile ones can be attacked)."""

    name: str
    hostile: bool
    x: float
    z: float
    y: float = GROUND_Y


class FakeTime:
    """An injected clock plus an async sleep that moves it (and yields once)."""

    def __init__(self) -> None:
        self.clock = FrozenClock(1_700_000_000_000)
        self.slept = 0.0

    async def sleep(self, seconds: float) -> None:
        self.slept += seconds
        self.clock.advance(int(seconds * 1000))
        await asyncio.sleep(0)


class FakeBody:
    def __init__(self, clock: FrozenClock, inventory: dict[str, int] | None = None, polls_to_finish: int = 1) -> None:
        self.clock = clock
        self.blocks: dict[tuple[int, int, int], str] = {}
        self.inventory: Counter[str] = Counter(inventory or {})
        self.position = Vec3(x=0.5, y=GROUND_Y, z=0.5)
        self.polls_to_finish = polls_to_finish
        self.hang: set[str] = set()  # action kinds that never finish by themselves
        self.fail: dict[str, str] = {}  # kind -> error message
        self.started: list[tuple[str, dict[str, Any]]] = []
        self.cancelled: list[str] = []
        self.said: list[str] = []
        self._actions: dict[str, dict[str, Any]] = {}
        self.running_now = 0
        self.peak_running = 0
        self.health = 20.0
        self.view_distance: float | None = None  # blocks farther than this (horizontally) read as not loaded
        self.food = 20
        self.eaten: list[str] = []
        self.mobs: list[Mob] = []
        self.pillars: list[tuple[float, int, float]] = []  # where each pillar started: x, its targetY, z
        self.cover: int | None = None  # solid blocks over the head, as the snapshot reads them (None: not read)

    # ---- world ---------------------------------------------------------------------
    def block(self, x: int, y: int, z: int) -> str:
        return self.blocks.get((x, y, z), "dirt" if y < GROUND_Y else "air")

    def add_tree(self, x: int, z: int, height: int = 4, wood: str = "oak") -> None:
        for dy in range(height):
            self.blocks[(x, GROUND_Y + dy, z)] = f"{wood}_log"

    # ---- Body protocol -------------------------------------------------------------
    def distance_to(self, mob: Mob) -> float:
        return math.dist((self.position.x, self.position.y, self.position.z), (mob.x, mob.y, mob.z))

    def snapshot(self) -> WorldSnapshot:
        seen = sorted(self.mobs, key=self.distance_to)
        entities = [
            EntityInfo(
                name=m.name,
                type="hostile" if m.hostile else "animal",
                hostile=m.hostile,
                distance=self.distance_to(m),
                position=Vec3(x=m.x, y=m.y, z=m.z),
            )
            for m in seen
        ]
        return WorldSnapshot(
            health=self.health,
            food=self.food,
            gameMode="survival",
            dimension="overworld",
            timeOfDay=1000,
            isDay=True,
            position=self.position,
            inventory=[InventoryItem(name=n, count=c) for n, c in sorted(self.inventory.items()) if c > 0],
            entities=entities,
            hostiles=sum(1 for m in seen if m.hostile and self.distance_to(m) <= 16),
            cover=self.cover,
            ts=self.clock(),
        )

    def region(self, origin: tuple[int, int, int], size: tuple[int, int, int]) -> BlockRegion:
        palette: list[str | None] = []
        index: dict[str | None, int] = {}
        data = []
        ox, oy, oz = origin
        for y in range(size[1]):
            for z in range(size[2]):
                for x in range(size[0]):
                    name = None if self._unloaded(ox + x, oz + z) else self.block(ox + x, oy + y, oz + z)
                    if name not in index:
                        index[name] = len(palette)
                        palette.append(name)
                    data.append(index[name])
        return BlockRegion(origin=origin, size=size, palette=palette, data=data)

    def _unloaded(self, x: int, z: int) -> bool:
        if self.view_distance is None:
            return False
        return math.dist((x + 0.5, z + 0.5), (self.position.x, self.position.z)) > self.view_distance

    def events(self) -> list[BodyEvent]:
        return []

    def chat(self, message: str) -> None:
        self.said.append(message)

    def start_action(self, kind: str, args: dict[str, Any]) -> ActionStatus:
        aid = f"a{len(self.started) + 1}"
        self.started.append((kind, dict(args)))
        st = ActionStatus(id=aid, kind=kind, state=ActionState.running, startedAt=self.clock())
        self._actions[aid] = {"status": st, "args": dict(args), "polls": 0}
        self.running_now += 1
        self.peak_running = max(self.peak_running, self.running_now)
        return st

    def _end(self, aid: str, state: ActionState, result: Any = None, error: str | None = None) -> ActionStatus:
        rec = self._actions[aid]
        if rec["status"].state is ActionState.running:
            self.running_now -= 1
            rec["status"] = rec["status"].model_copy(
                update={"state": state, "result": result, "error": error, "endedAt": self.clock()}
            )
        status: ActionStatus = rec["status"]
        return status

    def poll_action(self, action_id: str) -> ActionStatus:
        if action_id not in self._actions:
            raise BodyError(f"no action with id {action_id}")
        rec = self._actions[action_id]
        st: ActionStatus = rec["status"]
        if st.state.terminal or st.kind in self.hang:
            return st
        rec["polls"] += 1
        if rec["polls"] < self.polls_to_finish:
            return st
        if st.kind in self.fail:
            return self._end(action_id, ActionState.failed, error=self.fail[st.kind])
        try:
            result = getattr(self, f"_do_{st.kind}")(rec["args"])
        except BodyError as e:
            return self._end(action_id, ActionState.failed, error=str(e))
        return self._end(action_id, ActionState.done, result=result)

    def cancel_action(self, action_id: str) -> ActionStatus:
        self.cancelled.append(action_id)
        return self._end(action_id, ActionState.cancelled, error="cancelled")

    # ---- action effects ------------------------------------------------------------
    def _do_move_to(self, a: dict[str, Any]) -> dict[str, Any]:
        self.position = Vec3(x=a["x"], y=a["y"], z=a["z"])
        return {"position": {"x": a["x"], "y": a["y"], "z": a["z"]}}

    def refuse_first_walk_target(self) -> list[tuple[float, float]]:
        """Every walk to the x, z of the first walk asked for from now on stalls (move_to.js's
        error); the returned list holds that x, z once it is asked."""
        walk = self._do_move_to
        refused: list[tuple[float, float]] = []

        def move_to(a: dict[str, Any]) -> dict[str, Any]:
            if not refused:
                refused.append((a["x"], a["z"]))
            if (a["x"], a["z"]) == refused[0]:
                raise BodyError(f"no progress toward {a['x']},{a['y']},{a['z']} for 160 ticks (distance 3.0)")
            return walk(a)

        self._do_move_to = move_to  # type: ignore[method-assign]
        return refused

    def _do_step(self, a: dict[str, Any]) -> dict[str, Any]:  # a straight walk to a cell's middle
        self.position = Vec3(x=int(a["x"]) + 0.5, y=a["y"], z=int(a["z"]) + 0.5)
        return {"position": {"x": self.position.x, "y": a["y"], "z": self.position.z}}

    def _do_collect(self, a: dict[str, Any]) -> dict[str, Any]:
        top = a.get("maxY", math.inf)  # like node/lib/actions/collect.js (maxY, dryOnly)

        def wet(p: tuple[int, int, int]) -> bool:
            x, y, z = p
            sides = ((x + 1, y, z), (x - 1, y, z), (x, y + 1, z), (x, y - 1, z), (x, y, z + 1), (x, y, z - 1))
            return any(is_liquid(self.block(*c)) for c in sides)

        trunk = a["block"].endswith(("_log", "_stem"))  # its own logs over its foot are no cover

        def covered(p: tuple[int, int, int]) -> bool:  # a solid block over it (coverOver)
            x, y, z = p
            return any(
                is_solid(n) and not (trunk and n == a["block"]) and not n.endswith("leaves")
                for n in (self.block(x, y + dy, z) for dy in range(2, 18))
            )

        spots = sorted(
            p
            for p, n in self.blocks.items()
            if n == a["block"]
            and p[1] <= top
            and not (a.get("dryOnly") and wet(p))
            and not (a.get("covered") and not covered(p))
        )[: a.get("count", 1)]
        if a.get("covered") and not spots:
            raise BodyError(f"no {a['block']} under cover within {a.get('maxDistance', 32)} blocks")
        for p in spots:
            del self.blocks[p]
            self.inventory[a.get("item", a["block"])] += 1
        return {"collected": len(spots)}

    def _do_find(self, a: dict[str, Any]) -> dict[str, Any]:  # like node/lib/actions/find.js, in loaded chunks
        reach = min(a.get("maxDistance", 64), 64)
        me = (self.position.x, self.position.y, self.position.z)
        near = sorted(
            (round(math.dist(me, (p[0] + 0.5, p[1] + 0.5, p[2] + 0.5)), 2), p, n)
            for p, n in self.blocks.items()
            if n in a["names"] and not self._unloaded(p[0], p[2]) and p[1] >= a.get("minY", -math.inf)
        )
        found = [(d, p, n) for d, p, n in near if d <= reach][: a.get("count", 1)]
        return {"blocks": [{"name": n, "x": p[0], "y": p[1], "z": p[2], "distance": d} for d, p, n in found]}

    def _do_staircase(self, a: dict[str, Any]) -> dict[str, Any]:  # east, one block down a step
        steps = max(0, math.floor(self.position.y) - a["targetY"])
        self.position = Vec3(x=self.position.x + steps, y=a["targetY"], z=self.position.z)
        return {"steps": steps, "y": a["targetY"], "turned": 0, "torches": 0, "reason": "reached"}

    def _do_tunnel(self, a: dict[str, Any]) -> dict[str, Any]:  # level, the way asked (else east)
        dx, dz = {"north": (0, -1), "south": (0, 1), "west": (-1, 0)}.get(a.get("direction", "east"), (1, 0))
        n = a["blocks"]
        self.position = Vec3(x=self.position.x + dx * n, y=self.position.y, z=self.position.z + dz * n)
        return {"steps": a["blocks"], "y": math.floor(self.position.y), "turned": 0, "torches": 0, "reason": "reached"}

    def _do_pillar(self, a: dict[str, Any]) -> dict[str, Any]:
        """Like node/lib/actions/pillar.js: up to targetY where the bot stands, the two blocks
        over the head dug (digOnly's kinds only) unless a liquid is in or beside one (with
        `dam`: those and the ones beside the head filled with cobblestone held first, as many
        kept as steps are left, and dug when in the way) or what is over it falls; a placed
        block under the feet at each step."""
        x, z = math.floor(self.position.x), math.floor(self.position.z)
        y, steps, placed = math.floor(self.position.y), 0, set()
        self.pillars.append((self.position.x, a["targetY"], self.position.z))

        def sides(cx: int, cy: int, cz: int) -> list[tuple[int, int, int]]:
            return [(cx + dx, cy, cz + dz) for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1))]

        while y < a["targetY"]:
            if a.get("dam"):  # beside the head, in and beside and over the two blocks over it
                shaft = [
                    *sides(x, y + 1, z),
                    *((x, y + k, z) for k in (2, 3, 4)),
                    *sides(x, y + 2, z),
                    *sides(x, y + 3, z),
                ]
                for cell in (c for c in shaft if is_liquid(self.block(*c))):
                    if self.inventory["cobblestone"] <= a["targetY"] - y:  # kept for the steps left
                        raise BodyError(f"pillar blocked at {x},{y},{z} after {steps} steps: no block to spare")
                    self.inventory["cobblestone"] -= 1
                    self.blocks[cell] = "cobblestone"
                    placed.add(cell)
            for over in ((x, y + 2, z), (x, y + 3, z)):  # two blocks over the head
                ox, oy, oz = over
                near = [over, (ox, oy + 1, oz), *sides(*over)]
                wet = next((c for c in near if is_liquid(self.block(*c))), None)
                name = self.block(*over)
                if wet is not None or canonical(self.block(ox, oy + 1, oz)) in FALLING:
                    where = wet or (ox, oy + 1, oz)
                    what = self.block(*where)
                    raise BodyError(f"pillar blocked at {x},{y},{z} after {steps} steps: {what} at {where}")
                if name != "air" and "digOnly" in a and name not in a["digOnly"] and over not in placed:
                    raise BodyError(f"pillar blocked at {x},{y},{z} after {steps} steps: {name}, not natural ground")
                self.blocks[over] = "air"
            self.blocks[(x, y, z)] = "cobblestone"
            y, steps = y + 1, steps + 1
        self.position = Vec3(x=self.position.x, y=y, z=self.position.z)
        dammed = {"dammed": len(placed)} if a.get("dam") else {}
        return {"steps": steps, "y": y, **dammed, "reason": "reached"}

    def _do_dig(self, a: dict[str, Any]) -> dict[str, Any]:
        pos = (a["x"], a["y"], a["z"])
        name = self.block(*pos)
        if name == "air":
            raise BodyError(f"nothing to dig at {pos}")
        self.blocks[pos] = "air"
        self.inventory[name] += 1
        return {"dug": name}

    def _do_place(self, a: dict[str, Any]) -> dict[str, Any]:
        pos = (a["x"], a["y"], a["z"])
        if self.inventory[a["block"]] < 1:
            raise BodyError(f"no {a['block']} in inventory")
        here = self.block(*pos)
        if not (is_replaceable(here) or is_liquid(here)):  # like node/lib/actions/place.js (names.js replaceable)
            raise BodyError(f"{pos} is occupied by {self.block(*pos)}")
        x, y, z = pos
        sides = ((x + 1, y, z), (x - 1, y, z), (x, y + 1, z), (x, y - 1, z), (x, y, z + 1), (x, y, z - 1))
        if not any(is_solid(self.block(*c)) or is_door(self.block(*c)) for c in sides):  # a full face, as place.js
            raise BodyError(f"no solid block next to {pos} to place against")
        self.inventory[a["block"]] -= 1
        self.blocks[pos] = a["block"]
        return {"placed": a["block"]}

    def _do_craft(self, a: dict[str, Any]) -> dict[str, Any]:
        rec = recipe_for(a["item"])
        if rec is None:
            raise BodyError(f"unknown item {a['item']}")
        if rec.needs_table:
            t = a.get("table")
            if not t or self.block(t["x"], t["y"], t["z"]) != "crafting_table":
                raise BodyError("needs a crafting table")
        times = a.get("times", 1)
        for ing, n in rec.ingredients:
            need = n * times
            names = taking_order(self.inventory, ing, frozenset(a.get("keep", ())))  # as craft.js chooses
            if "|" in ing:  # like the game: every cell of one variant holds the same item
                names = names[:1]
            for name in names:
                used = min(need, self.inventory[name])
                self.inventory[name] -= used
                need -= used
            if need:
                raise BodyError(f"missing {need} {ing}")
        self.inventory[a["item"]] += rec.makes * times
        return {"item": a["item"], "times": times}

    def _do_equip(self, a: dict[str, Any]) -> dict[str, Any]:
        return {"equipped": a["item"]}

    def _do_wear(self, a: dict[str, Any]) -> dict[str, Any]:  # armour worn counts as held, as in the snapshot
        return {"worn": []}

    def _do_consume(self, a: dict[str, Any]) -> dict[str, Any]:  # like node/lib/actions/consume.js
        held = [n for n in FOOD_POINTS if self.inventory[n] > 0]
        if not held:
            raise BodyError("no food in inventory")
        item = a.get("item") or max(held, key=FOOD_POINTS.__getitem__)
        if item not in held:
            raise BodyError(f"no {item} (food) in inventory")
        if self.food >= 20:
            raise BodyError("Food is full")
        before = self.food
        self.inventory[item] -= 1
        self.food = min(20, self.food + FOOD_POINTS[item])
        self.eaten.append(item)
        return {"ate": item, "foodBefore": before, "foodAfter": self.food}

    def _do_attack(self, a: dict[str, Any]) -> dict[str, Any]:  # like node/lib/actions/attack.js: fights it to the end
        radius = a.get("radius", 8)
        near = [m for m in self.mobs if m.hostile and self.distance_to(m) <= radius and a.get("name") in (None, m.name)]
        if not near:
            raise BodyError(f"no {a.get('name') or 'hostile'} within reach to attack")
        target = min(near, key=self.distance_to)
        self.mobs.remove(target)
        return {"target": target.name, "hits": 3, "gone": True}


class CoveredNightBody(FakeBody):
    """Under cover at night (dug in under the hut): a block over the head."""

    def snapshot(self) -> WorldSnapshot:
        return super().snapshot().model_copy(update={"timeOfDay": 15_000, "isDay": False, "cover": 4})
