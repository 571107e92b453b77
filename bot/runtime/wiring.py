"""The daemon's composition root: builds one bot's agency (stores, perception, keep-alive,
drive ticks, planning, goals, the executor, reflexes and direct actions) and declares the
jobs that drive it. What they decide lives in agency/; here they are only built and handed
to each other. Every method runs on the daemon's event loop (the one owner of agency
state); bridge calls are awaited on worker threads.

Here: Agency put together from its parts, and the names callers import. Its stores and loops
are AgencyCore (wiring_core.py, beside GoalWiring); what acts on the body, built once the
bot has connected, is wiring_body.py; the jobs that drive it wiring_jobs.py; what the HTTP
API calls wiring_api.py."""

from __future__ import annotations

from bot.runtime.wiring_api import AgencyApi
from bot.runtime.wiring_body import AgencyBody
from bot.runtime.wiring_core import GoalWiring
from bot.runtime.wiring_jobs import AgencyJobs

# Callers import the goal runtime from here, beside the Agency.
__all__ = ["Agency", "GoalWiring"]


class Agency(AgencyBody, AgencyJobs, AgencyApi):
    """One bot's agency: its perception, thoughts, drive ticks, goals, executor and reflexes,
    on the daemon's database and task store (`shared`, opened here when not given: a
    one-bot daemon, tests). `bot` is its `[[bots]]` entry; None = the single bot of [bot].

    Built in two steps: the stores and loops when it is made (AgencyCore), what acts on the
    body in attach_body() (AgencyBody) once the bot has connected (the world and the bridge
    start in between, and a config error must surface before either)."""
