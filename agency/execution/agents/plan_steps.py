"""The base of a PlanBuilder (agency.execution.agents.plan_builder): the steps added in order,
what each serves, the simulated inventory they are built over (items reserved out of the
planner's reach still counted in the totals), and WorkflowPlanError, which a plan that cannot
be made raises with a code (NO_TOOL, NO_SOURCE...)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Set as AbstractSet
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from agency.errors import AgencyError
from agency.execution.workflows.models import StepDef
from agency.game.recipes import available


class WorkflowPlanError(AgencyError, ValueError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class PlanSteps:
    """The steps and the simulated inventory; each layer above adds a kind of step
    (plan_tools, plan_gathering, plan_smelting, and PlanBuilder's crafts)."""

    def __init__(
        self,
        inventory: Mapping[str, int],
        *,
        table_known: bool = False,
        furnace_known: bool = False,
        stock: tuple[int, int] = (0, 0),
        absent: AbstractSet[str] = frozenset(),
    ) -> None:
        self.sim: dict[str, int] = dict(inventory)
        self.table = table_known  # a crafting table the craft steps can use (told of, or placed by this plan)
        self.furnace = furnace_known  # a furnace the smelt steps can use (told of, or placed by this plan)
        self.steps: list[StepDef] = []
        self.kept: dict[str, int] = {}  # held but out of the planner's reach (reserved), still counted in totals
        self._making: set[str] = set()  # tools being planned: a tool that needs itself is refused
        self.worn: dict[str, int] = {}  # tool -> uses spent on the held copy being worn out
        self._for: list[str] = []  # what the steps being added serve, outermost first (StepDef.serves)
        self.stock = stock  # logs to take down at the first descent: (for crafts, as fuel) (planned)
        self.unburnt = 0  # logs held that the smelts must not burn: a later craft needs them
        self.logs_below: list[tuple[int, bool]] = []  # log batches gathered after a descent: (count, as fuel)
        self.absent = absent  # blocks a failed step found none of: what they give is made otherwise (made_instead)

    def add(self, step_id: str, **fields: Any) -> StepDef:
        """Append a step; an id already taken gets -2, -3... (batches, a second round of planks)."""
        taken = {s.id for s in self.steps}
        sid, n = step_id, 2
        while sid in taken:
            sid, n = f"{step_id}-{n}", n + 1
        step = StepDef(id=sid, serves=" > ".join(self._for), **fields)
        self.steps.append(step)
        return step

    @contextmanager
    def serving(self, what: str) -> Iterator[None]:
        """The steps added inside serve `what` (the plan's tree: agency.goals.obtain_plan)."""
        self._for.append(what)
        try:
            yield
        finally:
            self._for.pop()

    def held(self, generic: str) -> int:
        """What the inventory holds at this point of the plan (reserved items included): the
        totals the steps ensure."""
        return available(self.sim, generic) + available(self.kept, generic)

    @contextmanager
    def reserved(self, keep: Mapping[str, int]) -> Iterator[None]:
        """Plan inside this block without using `keep` (the input a smelt needs, while the
        furnace is planned): it is neither crafted with nor counted as there to use."""
        moved = {k: min(n, self.sim.get(k, 0)) for k, n in keep.items()}
        for k, n in moved.items():
            self.sim[k] -= n
            self.kept[k] = self.kept.get(k, 0) + n
        try:
            yield
        finally:
            for k, n in moved.items():
                self.kept[k] -= n
                self.sim[k] = self.sim.get(k, 0) + n

    if TYPE_CHECKING:  # PlanBuilder's (plan_builder): the layers below craft tools, buckets, furnaces, inputs with it

        def craft(self, item: str, amount: int) -> None: ...
