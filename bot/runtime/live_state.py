"""What the dashboard's live stream reads (bot/runtime/api/live_stream.py), gathered from the daemon
and its agency without a bridge call: the perception job's last snapshot, the stores, the
scheduler's job stats, the reflexes' and direct actions' state."""

from __future__ import annotations

from typing import Any

from agency.planning.tasks.models import TaskStatus
from bot.runtime.api.live_stream import LiveSources

STEP_EVENTS = ("step_started", "step_finished", "step_failed")
STATE_TTL_MS = 900  # the live stream's period is 1 s: one build serves every page


class ActiveStep:
    """The active task's latest step, read from its event log a page at a time (each call
    reads only the events since the last)."""

    def __init__(self, tasks: Any) -> None:
        self.tasks = tasks
        self._task_id: str | None = None
        self._after = 0
        self._step: dict[str, Any] | None = None

    def of(self, task_id: str) -> dict[str, Any] | None:
        if task_id != self._task_id:
            self._task_id, self._after, self._step = task_id, 0, None
        page = self.tasks.events(task_id, after_seq=self._after)
        while page:
            for ev in page:
                self._after = ev.seq
                if ev.event in STEP_EVENTS:
                    self._step = {"event": ev.event, "at": ev.at, **ev.data}
            page = self.tasks.events(task_id, after_seq=self._after)
        return self._step


def _dump(obj: Any) -> Any:
    return obj.model_dump(mode="json", exclude_none=True)


def job_health(scheduler: Any) -> dict[str, dict[str, Any]]:
    return {
        name: {
            "enabled": spec.enabled,
            "intervalS": spec.interval_s,
            "runs": spec.stats.runs,
            "errors": spec.stats.errors,
            "timeouts": spec.stats.timeouts,
            "skipped": spec.stats.skipped,
            "lastRunS": round(spec.stats.last_run_s, 3),
            "lastError": spec.stats.last_error,
        }
        for name, spec in scheduler.jobs.items()
    }


def reflex_state(reflexes: Any) -> dict[str, Any] | None:
    if reflexes is None:
        return None
    return {
        "holding": reflexes.holding_tasks,
        "why": reflexes.hold_reason,
        "deaths": reflexes.stats.deaths,
        "nightsSheltered": reflexes.stats.nights_sheltered,
        "nightsUnderground": reflexes.stats.nights_underground,
        "nightsDugIn": reflexes.stats.nights_dug_in,
        "nightsBurrowed": reflexes.stats.nights_burrowed,
    }


def bot_summary(agency: Any) -> dict[str, Any]:
    """One bot as its perception job last saw it, with the task it runs (no bridge call)."""
    snap = agency.last_snapshot
    ex = agency.executor
    reflexes = agency.reflexes
    return {
        "name": agency.name,
        "connected": bool(agency.body is not None and agency.body.connected),
        "agents": [p.id for p in agency.agents.list()],
        "drives": agency.entry.drives,
        "reflexes": agency.entry.reflexes,
        "health": snap.health if snap is not None else None,
        "food": snap.food if snap is not None else None,
        "position": snap.position.model_dump() if snap is not None else None,
        "runningTaskId": ex.current.task_id if ex is not None and ex.current is not None else None,
        "reflexHold": reflexes.hold_reason if reflexes is not None else None,
        "reflexActing": bool(reflexes is not None and reflexes.acting),
    }


def live_sources(agency: Any, daemon: Any) -> LiveSources:
    step = ActiveStep(agency.tasks)
    cache: dict[str, Any] = {"at": None, "state": None}

    def state() -> dict[str, Any]:
        """Built at most once a second, whatever the number of open pages."""
        now = agency.clock()
        if cache["at"] is None or now - cache["at"] >= STATE_TTL_MS:
            cache["state"], cache["at"] = build_state(), now
        return cache["state"]

    def build_state() -> dict[str, Any]:
        mine = getattr(agency, "claim_as", None)  # a fleet's bot: the task it holds, not another's
        active = (
            agency.tasks.held_by(mine, TaskStatus.active) if mine else agency.tasks.list_by_status(TaskStatus.active)
        )
        direct = agency.direct.body_busy if agency.direct is not None else None
        snap = agency.last_snapshot
        return {
            "snapshot": snap.model_dump(mode="json") if snap is not None else None,
            "health": daemon.health(),
            "counters": agency.counters.snapshot(),
            "jobs": job_health(daemon.scheduler),
            "activeTask": {"task": _dump(active[0]), "step": step.of(active[0].id)} if active else None,
            "direct": direct.view(agency.clock()) if direct is not None else None,
            "reflex": reflex_state(agency.reflexes),
            "shelters": agency.goals.shelter_status(),
            "taskCounts": agency.tasks.counts_by_status(),
            "bots": [bot_summary(a) for a in (getattr(daemon, "agencies", None) or {agency.name: agency}).values()],
        }

    def tasks(limit: int) -> list[dict[str, Any]]:
        why, out = agency.waiting_now(), []
        for t in agency.tasks.newest(limit):
            row, reason = _dump(t), why(t)
            if reason:
                row["waiting"] = reason
            out.append(row)
        return out

    def thoughts(limit: int) -> list[dict[str, Any]]:
        return [_dump(t) for t in agency.stream.recent(limit)]

    def chat(after: int) -> list[dict[str, Any]]:
        handler = getattr(agency, "chat", None)
        return handler.lines_after(after) if handler is not None else []

    return LiveSources(
        state=state, tasks=tasks, thoughts=thoughts, logs=lambda after: daemon.log_tail.after(after), chat=chat
    )
