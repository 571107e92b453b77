"""Fault injection for `scripts/soak.sh MINUTES --chaos`: at seeded random intervals, SIGKILL
the bridge's node process, the embedded world's node process, or the daemon itself (then
start it again with the same config and database, as a supervisor would), and time each
recovery: from the kill until /healthz reports ok again, after it was seen down. Every
process the daemons ever started is remembered, so the ones left behind can be named.
"""

from __future__ import annotations

import contextlib
import random
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import psutil

from bot.tooling.daemon_run import healthy
from bot.tooling.soak_chaos_verdict import FAULT_KINDS, RECOVERY_MAX_S

INTERVALS_S = {"fast": (20.0, 40.0), "real": (60.0, 180.0)}  # between two faults
QUIET_END_S = 30.0  # no fault this close to the end: its recovery must be seen
DOWN_WITHIN_S = 15.0  # a fault the daemon never reports is not a recovered fault
EXIT_WAIT_S = 10.0  # how long a killed daemon's children get to exit on their own


def _describe(p: psutil.Process) -> str:
    try:
        cmd = " ".join(p.cmdline())
    except psutil.Error:
        cmd = "?"
    return f"pid {p.pid}: {cmd[:160]}"


def _alive(pid: int, created: float) -> psutil.Process | None:
    """The process, if it still runs (not a zombie, and not a new process with its pid)."""
    try:
        p = psutil.Process(pid)
        return p if p.create_time() == created and p.status() != psutil.STATUS_ZOMBIE else None
    except psutil.Error:
        return None


@dataclass
class Chaos:
    seed: int
    fast: bool
    embedded: bool  # only a world mcbot started can be killed (and restarted by it)
    base: str  # the daemon's API
    restart: Callable[[], subprocess.Popen]  # start the daemon again, same config and db
    say: Callable[[str], None]
    faults: list[dict] = field(default_factory=list)
    # every descendant ever seen: (pid, create time) -> description
    known: dict[tuple[int, float], str] = field(default_factory=dict)
    orphans: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.kinds = [k for k in FAULT_KINDS if self.embedded or k != "world"]
        self._order: list[str] = []
        self.next_at: float | None = None

    @property
    def interval(self) -> tuple[float, float]:
        return INTERVALS_S["fast" if self.fast else "real"]

    def schedule(self, now: float, deadline: float) -> None:
        at = now + self.rng.uniform(*self.interval)
        self.next_at = at if at < deadline - QUIET_END_S else None

    def next_kind(self) -> str:
        """Every kind once, in a seeded order, then again: a short run sees each kind."""
        if not self._order:
            self._order = self.rng.sample(self.kinds, len(self.kinds))
        return self._order.pop(0)

    def track(self, proc: subprocess.Popen) -> None:
        try:
            kids = psutil.Process(proc.pid).children(recursive=True)
        except psutil.Error:
            return
        for c in kids:
            with contextlib.suppress(psutil.Error):
                self.known.setdefault((c.pid, c.create_time()), _describe(c))

    def inject(self, proc: subprocess.Popen, t: float) -> subprocess.Popen:
        """Inject the next fault and wait for the recovery; returns the daemon (a new one
        when the daemon was the fault)."""
        kind = self.next_kind()
        self.track(proc)
        killed_at = time.monotonic()
        if kind == "daemon":
            victim = f"daemon pid {proc.pid}"
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            self._reap_children(proc)
            proc = self.restart()
        else:
            target = self._node(proc, world=kind == "world")
            if target is None:
                self.say(f"[Soak] chaos t={t:g}s {kind}: no such process to kill, skipped")
                return proc
            victim = _describe(target)
            target.send_signal(signal.SIGKILL)
        fault = {"kind": kind, "t": t, "victim": victim, **self._recovery(killed_at, proc)}
        self.faults.append(fault)
        self.track(proc)
        self.say(
            f"[Soak] chaos t={t:g}s killed {kind} ({victim}): "
            + (
                f"healthy again after {fault['recoveryS']:.1f} s"
                if fault["recoveryS"] is not None
                else f"NOT recovered ({fault['note']})"
            )
        )
        return proc

    def _node(self, proc: subprocess.Popen, *, world: bool) -> psutil.Process | None:
        try:
            kids = psutil.Process(proc.pid).children(recursive=True)
        except psutil.Error:
            return None
        for c in kids:
            try:
                cmd = " ".join(c.cmdline())
            except psutil.Error:
                continue
            if "node" in c.name() and ("server.js" in cmd) == world:
                return c
        return None

    def _reap_children(self, proc: subprocess.Popen) -> None:
        """A killed daemon's node children must exit on their own (they watch their stdin);
        the ones still running after EXIT_WAIT_S are orphans, killed so the run goes on."""
        old = [key for key in self.known if _alive(*key)]
        deadline = time.monotonic() + EXIT_WAIT_S
        while time.monotonic() < deadline and any(_alive(*key) for key in old):
            time.sleep(0.2)
        for key in old:
            p = _alive(*key)
            if p is not None:
                self.orphans.append(f"{self.known[key]} (outlived the killed daemon {proc.pid})")
                p.kill()

    def _recovery(self, killed_at: float, proc: subprocess.Popen) -> dict:
        limit = killed_at + 4 * max(RECOVERY_MAX_S.values())
        down = False
        while time.monotonic() < limit and proc.poll() is None:
            ok = healthy(self.base)
            if not ok:
                down = True
            elif down:
                return {"recoveryS": round(time.monotonic() - killed_at, 1)}
            elif time.monotonic() - killed_at > DOWN_WITHIN_S:
                return {"recoveryS": None, "note": f"/healthz never reported the fault within {DOWN_WITHIN_S:g} s"}
            time.sleep(0.25)
        why = f"the daemon exited with {proc.returncode}" if proc.poll() is not None else "still unhealthy"
        return {"recoveryS": None, "note": why}

    def leftovers(self) -> list[str]:
        """After the run: every process a daemon started that still runs is an orphan."""
        deadline = time.monotonic() + EXIT_WAIT_S
        while time.monotonic() < deadline and any(_alive(*key) for key in self.known):
            time.sleep(0.2)
        for key, desc in self.known.items():
            p = _alive(*key)
            if p is not None:
                self.orphans.append(f"{desc} (alive after the run)")
                p.kill()
        return self.orphans
