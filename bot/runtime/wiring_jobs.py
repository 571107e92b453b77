"""The periodic jobs that drive one bot's agency (keep the bot connected, perceive, keep
alive, the drive tick, planning, the executor, reflexes, the counters' log line, stream
pruning, goal review), and their declaration as data for the scheduler. Each runs on the
daemon's event loop; bridge calls are awaited on worker threads."""

from __future__ import annotations

import asyncio

from loguru import logger

from agency.execution.executor import DISCONNECTED
from agency.perception.reads import snapshot_or_none
from bot.runtime.scheduler import JobSpec
from bot.runtime.wiring_core import AgencyCore


class AgencyJobs(AgencyCore):
    """One bot's job bodies, and jobs(): which run, how often, with what timeout."""

    async def job_body(self) -> None:
        """Keep the bot connected (reconnect, rebuild a dead bridge); collect its events
        (a lost bot's too: its `end` says why). A disconnect holds the running task
        ('disconnected'); the executor gives it back once the bot is ready again, unless the
        run took the bridge down a second time (a poison task: failed, not held)."""
        assert self.body is not None and self.executor is not None
        if not self.body.connected and self.executor.current is not None:
            await self.executor.preempt(DISCONNECTED)
        await asyncio.to_thread(self.body.maintain)
        events = await asyncio.to_thread(self.body.events)
        self._events.extend(events)
        if self.reflexes is not None:
            await self.reflexes.on_events(events)  # a death holds the running task at once
        if self.chat is not None:
            await self.chat.on_events(events)  # players' commands (agency.chat)
        if not self.body.connected and self.executor.current is not None:
            await self.executor.preempt(DISCONNECTED)  # the drained events held an `end`

    async def job_perception(self) -> None:
        assert self.body is not None
        if not self.body.connected:
            return
        snap = await snapshot_or_none(self.body, recent=True)  # periodic: read with the other bots' (bulk_reads.py)
        if snap is None:
            return
        events, self._events = self._events, []
        update = self.perception.observe(snap, events)
        self._stimuli.extend(update.stimuli)
        self.seen.saw(snap)

    async def job_keepalive(self) -> None:
        if self.last_snapshot is None:
            return
        stimuli, self._stimuli = self._stimuli, []
        # On the loop: with an LLM generator the tick awaits the HTTP call.
        await self.keepalive.atick(self.last_snapshot, stimuli)

    async def job_drive_tick(self) -> None:
        if self.drive is not None:
            await self.drive.run()

    async def job_planning(self) -> None:
        if self.gate.open("Planning", self._connected):  # no claims for a bot that is not there
            self.planning.poll_once()

    async def job_executor(self) -> None:
        assert self.executor is not None and self.body is not None
        outcome = await self.executor.tick(can_work=self.gate.open("Executor", self._connected), held=self.holder.taken)
        if outcome == "idle":
            self.idle.check()

    async def job_reflexes(self) -> None:
        if self.reflexes is None or not self.gate.open("Reflexes", self._connected):
            return
        if self.reflex_watch is not None:  # a tick, then threats answered as they come this interval
            await self.reflex_watch.run(budget_s=self.cfg.jobs.reflexes_s * 0.9)
            return
        snap = await snapshot_or_none(self.body)
        if snap is not None:
            await self.reflexes.tick(snap)

    async def job_counters_log(self) -> None:
        logger.info(self.counters.format_agency_log_line())

    async def job_stream_prune(self) -> None:
        self.stream.prune()

    def jobs(self, *, bot: str | None = None, planning: bool = True) -> list[JobSpec]:
        """This bot's periodic jobs, declared as data: name, body, interval, whether on
        (`jobs.disabled` names a job, or its bot's entry switches a loop off). `bot` names a
        fleet's bot: its jobs are told apart (`executor@alice`) and their log lines name it;
        planning=False leaves turning the shared stream's thoughts into tasks to another
        bot's job (one consumer a daemon)."""
        j, e = self.cfg.jobs, self.entry
        switched_off = {
            "drive_tick": not e.drives,
            "reflexes": not e.reflexes,
            "keepalive": not e.keepalive,
            "planning": not planning,
        }
        declared = [
            ("body", self.job_body, j.body_s, 90.0),
            ("perception", self.job_perception, j.perception_s, 30.0),
            ("keepalive", self.job_keepalive, j.keepalive_s, 30.0),
            ("drive_tick", self.job_drive_tick, j.drive_tick_s, 30.0),
            ("planning", self.job_planning, j.planning_s, 30.0),
            ("executor", self.job_executor, j.executor_s, 30.0),
            ("reflexes", self.job_reflexes, j.reflexes_s, 120.0),  # a flee may walk for 90 s
            ("counters_log", self.job_counters_log, j.counters_log_s, 30.0),
            ("stream_prune", self.job_stream_prune, j.stream_prune_s, 30.0),
            ("review", self.goals.job_review, j.review_s, 30.0),
        ]
        suffix = f"@{bot}" if bot else ""
        # planning turns every bot's thoughts into tasks: its lines are the daemon's
        return [
            JobSpec(
                name + suffix,
                body,
                interval_s,
                timeout_s=timeout_s,
                bot=None if name == "planning" else bot,
                enabled=name not in j.disabled and not switched_off.get(name, False),
            )
            for name, body, interval_s, timeout_s in declared
        ]
