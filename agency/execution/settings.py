"""Settings of the execution room: the survival reflexes (`[reflexes]`). The one schema:
agency.execution.reflexes takes this model and bot/config uses it as the type of the TOML
section, so a key, its default and its bounds are declared here only (the defaults are
those of config/mcbot.toml).

Pure pydantic, no other agency import: bot.config.schema imports this to validate the
config before anything heavy starts.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ReflexConfig(BaseModel):
    """Survival reactions that preempt the current task and give it back afterwards."""

    model_config = ConfigDict(extra="forbid", frozen=True)  # a typo in a key is an error, not a silent default

    enabled: bool = True
    # swim up for air at or below this many of the 20 air bubbles (0.75 s each under water):
    # 9 s of air left, time to reach the surface from a lake's floor
    surface_below_air: int = Field(12, ge=0, le=19)  # the snapshot reads the air only with the head in water
    # eat (or forage) at or below this food level; under 16 the drive tick waits
    # (docs/contracts.md DRIVE-1), so below 15 a fed bot could idle at 15 for good
    eat_below_food: int = Field(15, ge=0, le=20)
    # under this with food under 18 (no regeneration): eat, or forage
    heal_below_health: float = Field(16.0, ge=0, le=20)
    # hungry or unable to heal with nothing to eat held: hunt an animal in sight, or explore for one
    forage: bool = True
    # after a forage that brought no food; doubled after each fruitless one (up to 8x)
    forage_retry_ms: int = Field(30_000, ge=0)
    fight_within: float = Field(4.0, gt=0)  # fight a hostile this close (blocks)
    # the attack's search radius; no walk back to the items with a hostile this close
    fight_radius: float = Field(8.0, gt=0)
    shelter_at_night: bool = True  # dusk to morning in a verified shelter nearby, tasks held
    shelter_retry_ms: int = Field(120_000, ge=0)  # after a failed attempt to go in
    # morning: out once no hostile is this close (the sun burns zombies and skeletons only from time 23460,
    # after isDay turns true at 23000), or at the latest at time morning_leave_by
    morning_clear_within: float = Field(16.0, ge=0)
    morning_leave_by: int = Field(1000, ge=0, le=11_000)
    # at night in the hut, with underground work to do (the drive's next step): a staircase down
    # under it, its floor closed behind, and the night worked underground (agency.shelter.dig_in)
    dig_in_at_night: bool = True
    # at night with no shelter to go to (none known, or it could not be reached): a staircase
    # three steps down where the bot stands, closed over, tasks held until morning (agency.shelter.burrow)
    burrow_at_night: bool = True
    sleep_in_shelter: bool = True  # at night in the shelter, door closed: lie down in its bed (a held one is put there)
    sleep_retry_ms: int = Field(60_000, ge=0)  # after a failed attempt to sleep (no bed, monsters near)
    recover_items: bool = True  # after a death, walk back and pick up the dropped items
    recover_within: float = Field(64.0, gt=0)  # a death spot farther than this from the respawn is given up
    item_despawn_ms: int = Field(300_000, ge=0)  # vanilla: dropped items vanish after 5 minutes
    under_attack_ms: int = Field(5_000, ge=0)  # hurt this recently = under attack: no walk back at night
    # by mob kind (agency.execution.combat)
    retreat_below_health: float = Field(6.0, ge=0, le=20)  # at or below this, with hostiles close: retreat
    outnumbered_at: int = Field(3, ge=2)  # this many hostiles within fight_radius: retreat
    creeper_flee_within: float = Field(7.0, gt=0)  # vanilla: a creeper keeps its fuse burning within 7 blocks
    # end an evasion this far: beyond its follow range (16) a creeper gives up the chase (its blast reaches 6;
    # at 8 one followed a bot through 9 evasions in 4 minutes)
    creeper_safe_distance: float = Field(17.0, ge=4, le=40)
    skeleton_engage_within: float = Field(16.0, gt=0, le=32)  # a skeleton shoots from 15 blocks: close in
