"""A plan's smelts (agency.execution.agents.plan_builder): the input held, else gathered after
the tool its block needs, hunted, or made first; a furnace crafted when none is held or known;
the fuel (what is held besides the input and the logs a later craft needs, else logs gathered
for it); then one `smelt` step ensuring the total."""

from __future__ import annotations

import math
from collections.abc import Mapping

from agency.execution.agents.plan_gathering import FUEL_LOG, GatherSteps
from agency.execution.agents.plan_steps import WorkflowPlanError
from agency.execution.agents.sources import huntable, made_input, smeltable, source_block
from agency.game.furnace import FUEL_TICKS, held_inputs, inputs_for
from agency.tools.smelt_planner import choose_fuel, fuel_reserve, input_choice

FURNACE = "furnace"


class SmeltSteps(GatherSteps):
    """Smelt steps, with the furnace, input and fuel each needs."""

    def smelt(self, output: str, amount: int) -> None:
        """Have `amount` more `output` from a furnace: the input held, or gathered after the
        tool its block needs; a furnace crafted when none is held or known; logs as fuel when
        what is held does not cover the count; then one `smelt` step ensuring the total."""
        with self.serving(f"smelt {output}"):
            self._smelt(output, amount)

    def _smelt(self, output: str, amount: int) -> None:
        kind, have = input_choice(self.sim, output)
        short = amount - have
        source = game = None
        if short > 0:
            source = next((i for i in inputs_for(output) if source_block(i)), None)
            # meat to cook: the furnace first (its stone is at hand), then the hunt, then the smelt
            game = None if source is not None else next((i for i in inputs_for(output) if huntable(i)), None)
            made = None if source is not None or game is not None else made_input(output)
            if made is not None and made not in self._making:
                # an input made first (stone smelted for smooth stone, a clay block crafted for
                # terracotta), then this smelt of what is then held
                self._making.add(made)
                try:
                    self.smelt(made, short) if smeltable(made) else self.craft(made, short)
                finally:
                    self._making.discard(made)
                self._smelt(output, amount)
                return
            if source is None and game is None:
                raise WorkflowPlanError(
                    "NO_SOURCE",
                    f"{amount} {output} needs {short} more "
                    f"{' or '.join(inputs_for(output))} and the bot cannot gather it yet",
                )
        with self.reserved({kind: min(have, amount)} if kind else {}):  # neither is made of the input held
            if source is not None:
                self.ensure_tool(str(source_block(source)))  # at the table, before walking off to the ore
            if self.sim.get(FURNACE, 0) < 1 and not self.furnace:
                self.craft(FURNACE, 1)
        if source is not None:
            self.gather(source, short, step_id=f"gather-{source}-input", note="input")
            if self.sim.get(FURNACE, 0) < 1 and not self.furnace:  # the one known is up above (_seek)
                with self.reserved({source: self.held(source)}):
                    self.craft(FURNACE, 1)
        if game is not None:
            self.hunt(str(huntable(game)), short)
        # The fuel: what the inventory holds besides the input and the logs kept, else logs gathered for it.
        keep = {FUEL_LOG: self.unburnt} if self.unburnt else {}
        fuel = choose_fuel(
            self.sim,
            amount,
            reserve=fuel_reserve(self.sim, _reserve(held_inputs(self.sim, output), amount), keep, making=output),
        )
        if not fuel.enough:
            logs = math.ceil(fuel.short_ticks / FUEL_TICKS["log"])
            self.gather(FUEL_LOG, logs, step_id=f"gather-{FUEL_LOG}-fuel", note="fuel")
            fuel = choose_fuel(
                self.sim,
                amount,
                reserve=fuel_reserve(self.sim, _reserve(held_inputs(self.sim, output), amount), keep, making=output),
            )
        total = self.sim.get(output, 0) + amount
        if not self.furnace and self.sim.get(FURNACE, 0) > 0:
            self.sim[FURNACE] -= 1  # the smelt step places the one held
        self.add(
            f"smelt-{output.replace('_', '-')}",
            tool="smelt",
            description=f"have {total} {output}",
            args={"item": output, "count": total, "ensure": True, "craft_furnace": True}
            | ({"keep": keep} if keep else {}),
        )
        used = _reserve(held_inputs(self.sim, output), amount)
        for name, n in used.items():
            self.sim[name] -= n
        for pick in fuel.picks:
            self.sim[pick.name] = self.sim.get(pick.name, 0) - pick.count
        self.sim[output] = self.sim.get(output, 0) + amount
        self.furnace = True  # the smelt step placed one (or used one in sight)


def _reserve(inputs: Mapping[str, int], amount: int) -> dict[str, int]:
    """The held inputs a smelting uses (most held first), so they are not counted as fuel."""
    out: dict[str, int] = {}
    for name in sorted(inputs, key=lambda n: (-inputs[n], n)):
        if amount <= 0:
            break
        out[name] = min(amount, inputs[name])
        amount -= out[name]
    return out
