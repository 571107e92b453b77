"""A bridge that stops answering is a dead bridge: the wedge judgement on injected time
(heartbeats, loop lag, call timeouts, RSS in; a verdict and its reason out), the watch's
figures of a wedge from the beats node wrote, the spawn that gives only the bridge's node
its heap limit and heartbeat file, and the [bridge] limits' config checks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bot.config.loader import ConfigError, load_config
from bot.runtime import bridge_calls as bridge_module
from bot.runtime.bridge import Bridge, BridgeDead, BridgeError
from bot.runtime.bridge_worker import BridgeWorker as _Worker
from bot.runtime.heartbeat import HeartbeatFile
from bot.runtime.node_spawn import _Subprocess
from bot.runtime.node_watch import NodeWatch
from bot.runtime.wedge import Beat, Verdict, WedgeJudge, WedgeLimits

LIMITS = WedgeLimits(
    heartbeat_interval_s=0.5,
    missed_heartbeat_s=5.0,
    max_loop_lag_ms=2000,
    lag_samples=3,
    timeouts_in_a_row=3,
    max_rss_mb=3072,
)


def _beat(seq: int, ts_s: float, lag_ms: float = 5, rss_mb: float = 200, pid: int = 42) -> Beat:
    return Beat(pid=pid, seq=seq, ts=ts_s * 1000, lag_ms=lag_ms, heap_used_mb=50, rss_mb=rss_mb, heap_limit_mb=1072)


def _beating(judge: WedgeJudge, until: float, start: float = 0.0, every: float = 0.5, **kw: float) -> int:
    """Beats every `every` s from `start` to `until` (seen as written); the last seq."""
    seq, t = 0, start
    while t <= until + 1e-9:
        seq += 1
        judge.beat(t, _beat(seq, 1000 + t, **kw))
        assert judge.judge(t) is None, judge.verdict
        t += every
    return seq


# ---- silence -------------------------------------------------------------------------------
def test_beats_on_time_are_no_wedge_however_long_it_runs() -> None:
    judge = WedgeJudge(LIMITS, now=0.0)
    _beating(judge, until=600.0)
    assert judge.judge(604.0) is None  # 4 s since the last beat: under missed_heartbeat_s


def test_no_beat_for_missed_heartbeat_s_is_a_wedge_dated_from_the_first_missed_beat() -> None:
    judge = WedgeJudge(LIMITS, now=0.0)
    seq = _beating(judge, until=10.0)  # the last beat at t=10 (node wrote ts 1010 s)
    assert judge.judge(15.0) is None
    verdict = judge.judge(15.1)
    assert verdict is not None and verdict.kind == "silent"
    assert f"no heartbeat for 5.1 s (last #{seq}" in verdict.reason
    assert verdict.onset_ms == (1010.0 + 0.5) * 1000  # the beat due after the last one


def test_the_same_beat_read_again_does_not_count_as_a_new_one() -> None:
    judge = WedgeJudge(LIMITS, now=0.0)
    beat = _beat(1, 1000.0)
    judge.beat(0.0, beat)
    for t in (1.0, 3.0, 5.0):
        judge.beat(t, beat)  # the file still holds it
    assert judge.judge(5.2) is not None and judge.judge(5.2).kind == "silent"


def test_a_node_that_never_beats_is_wedged_missed_heartbeat_s_after_the_start() -> None:
    judge = WedgeJudge(LIMITS, now=100.0)
    assert judge.judge(104.9) is None
    verdict = judge.judge(105.1)
    assert verdict is not None and "since the start" in verdict.reason and verdict.onset_ms is None


# ---- loop lag ------------------------------------------------------------------------------
def test_lag_samples_lagging_beats_in_a_row_are_a_wedge_dated_from_the_first_ones_due_time() -> None:
    judge = WedgeJudge(LIMITS, now=0.0)
    seq = _beating(judge, until=5.0)
    t = 5.0
    for i, lag in enumerate((2500, 3000, 2800)):
        t += lag / 1000 + 0.5
        seq += 1
        judge.beat(t, _beat(seq, 1000 + t, lag_ms=lag))
        verdict = judge.judge(t)
        assert (verdict is None) == (i < 2)
    assert verdict is not None and verdict.kind == "lagging"
    assert "event loop lag over 2000 ms for 3 heartbeats in a row (2500, 3000, 2800 ms)" in verdict.reason
    first_lagging_ts = (1000 + 5.0 + 3.0) * 1000
    assert verdict.onset_ms == first_lagging_ts - 2500


def test_a_beat_on_time_between_lagging_ones_starts_the_count_again() -> None:
    judge = WedgeJudge(LIMITS, now=0.0)
    t = 0.0
    for seq, lag in enumerate((2500, 2500, 10, 2500, 2500, 10, 2500, 2500), start=1):  # a GC pause now and then
        t += 1.0
        judge.beat(t, _beat(seq, 1000 + t, lag_ms=lag))
        assert judge.judge(t) is None


# ---- call timeouts -------------------------------------------------------------------------
def test_timeouts_in_a_row_are_a_wedge_even_while_node_beats() -> None:
    judge = WedgeJudge(LIMITS, now=0.0)
    _beating(judge, until=2.0)
    judge.call_timed_out("snapshot")
    judge.call_timed_out("many(pollAction)")
    assert judge.judge(2.1) is None
    judge.call_timed_out("status")
    verdict = judge.judge(2.2)
    assert verdict is not None and verdict.kind == "timeouts"
    assert verdict.reason == "3 bridge calls in a row timed out (snapshot, many(pollAction), status)"


def test_an_answer_between_timeouts_starts_the_count_again() -> None:
    judge = WedgeJudge(LIMITS, now=0.0)
    for _ in range(5):
        judge.call_timed_out("snapshot")
        judge.call_timed_out("region")
        judge.call_answered()  # a value or a JS error: node answers
    assert judge.judge(1.0) is None


# ---- RSS -----------------------------------------------------------------------------------
def test_rss_over_the_limit_is_a_wedge_and_a_zero_limit_is_none() -> None:
    judge = WedgeJudge(LIMITS, now=0.0)
    judge.beat(0.0, _beat(1, 1000.0, rss_mb=3000))
    assert judge.judge(0.0) is None
    judge.beat(0.5, _beat(2, 1000.5, rss_mb=3500))
    verdict = judge.judge(0.5)
    assert verdict is not None and verdict.kind == "rss"
    assert "node RSS 3500 MB over the limit of 3072 MB" in verdict.reason

    unlimited = WedgeJudge(WedgeLimits(max_rss_mb=0), now=0.0)
    unlimited.beat(0.0, _beat(1, 1000.0, rss_mb=50_000))
    assert unlimited.judge(0.0) is None


def test_a_verdict_stands_once_reached() -> None:
    judge = WedgeJudge(LIMITS, now=0.0)
    verdict = judge.judge(6.0)
    judge.beat(6.1, _beat(1, 1006.1))  # a beat after the verdict does not undo the kill
    assert judge.judge(6.2) is verdict


# ---- the watch: beats from the file, the figures of a wedge --------------------------------
class _Clocks:
    def __init__(self) -> None:
        self.mono, self.wall = 0.0, 1000.0

    def advance(self, s: float) -> None:
        self.mono += s
        self.wall += s


def _write(hb: HeartbeatFile, **beat: float) -> None:
    hb.path.write_text(json.dumps(beat))


def test_the_watch_reads_its_nodes_beats_and_records_a_wedge_from_their_timestamps() -> None:
    clocks = _Clocks()
    watch = NodeWatch(LIMITS, clock=lambda: clocks.mono, wall=lambda: clocks.wall)
    env = watch.spawn_env()
    assert watch.heartbeat is not None and env["MCBOT_BRIDGE_HEARTBEAT_FILE"] == str(watch.heartbeat.path)
    assert env["MCBOT_BRIDGE_HEARTBEAT_MS"] == "500"
    watch.watch_actions(lambda: ["collect #3 of mcbot"])
    try:
        watch.node_up(pid=42, generation=1)
        for seq in range(1, 5):
            _write(watch.heartbeat, pid=42, seq=seq, ts=clocks.wall * 1000, lagMs=3, heapUsedMb=40, rssMb=90)
            assert watch.observe() is None
            clocks.advance(0.5)
        last_ts = clocks.wall - 0.5
        _write(watch.heartbeat, pid=7, seq=99, ts=clocks.wall * 1000)  # another node's beat does not count
        watch.in_flight = ("many(snapshot)", clocks.mono)
        while (verdict := watch.observe()) is None:
            clocks.advance(0.25)
        assert verdict.kind == "silent" and watch.beating(1.5) is False
        record = watch.wedged(verdict, generation=1)
        assert record.last_beat_ts == pytest.approx(last_ts)
        assert record.onset_ts == pytest.approx(last_ts + 0.5)  # the first beat that did not come
        assert record.detect_s == pytest.approx(5.0, abs=0.3)
        assert record.in_flight == "many(snapshot) for 4.8 s"  # the call under way, and since when
        assert record.actions == ["collect #3 of mcbot"]
        clocks.advance(2.0)
        watch.node_up(pid=43, generation=2)
        assert (record.new_pid, record.new_generation) == (43, 2)
        assert record.rebuild_s == pytest.approx(7.0, abs=0.3)
        assert [what for _, what, _ in watch.history] == ["up", "wedged", "up"]
        assert watch.observe() is None  # the new node is judged afresh
    finally:
        watch.close()
    assert not Path(env["MCBOT_BRIDGE_HEARTBEAT_FILE"]).parent.exists()


def test_a_half_written_or_foreign_heartbeat_reads_as_none(tmp_path: Path) -> None:
    hb = HeartbeatFile()
    try:
        assert hb.read(42) is None  # not written yet
        hb.path.write_text('{"pid": 42, "seq": ')
        assert hb.read(42) is None
        hb.path.write_text(json.dumps({"pid": 42, "seq": 3, "ts": 5.0, "lagMs": 12}))
        assert hb.read(42) == Beat(pid=42, seq=3, ts=5.0, lag_ms=12)
        assert hb.read(41) is None
    finally:
        hb.remove()


# ---- the spawn: only the bridge's node gets the heap limit and the heartbeat file ----------
def test_the_spawn_adds_node_flags_and_env_to_that_process_only() -> None:
    spawner = _Subprocess()
    spawner.node_args = ["-S"]  # a flag of the interpreter, before its script (here: -c)
    spawner.env = {"MCBOT_TEST_SPAWN": "yes"}
    code = "import os, sys; print(sys.flags.no_site, os.environ.get('MCBOT_TEST_SPAWN'))"
    proc = spawner.Popen([sys.executable, "-c", code], stdout=spawner.PIPE)
    out, _ = proc.communicate(timeout=30)
    assert out.decode().split() == ["1", "yes"]
    assert "MCBOT_TEST_SPAWN" not in os.environ
    assert spawner.PIPE is subprocess.PIPE  # the rest is the real module


# ---- config --------------------------------------------------------------------------------
def _load(tmp_path: Path, toml: str = "", environ: dict[str, str] | None = None):
    cwd, home, etc = (tmp_path / d for d in ("cwd", "home", "etc"))
    for d in (cwd, home, etc):
        d.mkdir()
    if toml:
        (cwd / "mcbot.toml").write_text(toml)
    return load_config(cwd=cwd, home=home, etc_dir=etc, environ=environ or {}).config


def test_the_bridge_limits_default_to_the_watchdogs_own(tmp_path: Path) -> None:
    b = _load(tmp_path).bridge
    assert (
        b.heartbeat_interval_s,
        b.missed_heartbeat_s,
        b.max_loop_lag_ms,
        b.lag_samples,
        b.timeouts_in_a_row,
        b.max_rss_mb,
    ) == (
        LIMITS.heartbeat_interval_s,
        LIMITS.missed_heartbeat_s,
        LIMITS.max_loop_lag_ms,
        LIMITS.lag_samples,
        LIMITS.timeouts_in_a_row,
        LIMITS.max_rss_mb,
    )
    assert b.heap_mb == 1024


@pytest.mark.parametrize(
    ("toml", "environ", "field", "says"),
    [
        ("[bridge]\nheap_mb = 64\n", {}, "bridge.heap_mb", "greater than or equal to 128"),
        ("", {"MCBOT_BRIDGE__LAG_SAMPLES": "0"}, "bridge.lag_samples", "greater than or equal to 1"),
        ("[bridge]\nmax_rss_mb = -1\n", {}, "bridge.max_rss_mb", "greater than or equal to 0"),
        ("[bridge]\nheartbeat_interval_s = 2.0\n", {}, "bridge.missed_heartbeat_s", "3 x bridge.heartbeat_interval_s"),
        ("[bridge]\nmissed_heartbeat_s = 1.0\n", {}, "bridge.missed_heartbeat_s", "3 x bridge.heartbeat_interval_s"),
    ],
)
def test_an_invalid_limit_exits_4_naming_its_field(
    tmp_path: Path, toml: str, environ: dict[str, str], field: str, says: str
) -> None:
    with pytest.raises(ConfigError) as exc:
        _load(tmp_path, toml, environ)
    assert exc.value.exit_code == 4
    line = next(x for x in str(exc.value).splitlines() if f"{field}:" in x)
    assert says in line


# ---- the bridge's calls feed the judge -----------------------------------------------------
class _Node:
    """bridge.js as the bridge thread sees it, for the call path alone: no node here."""

    def __init__(self, *gates: str) -> None:
        self.release = threading.Event()
        self.gates = {g: threading.Event() for g in gates}

    def gated(self, gate: str, *, timeout: float) -> str:
        """A legitimate call that answers once the test opens its gate."""
        self.gates[gate].wait(10)
        return gate

    def jspy_timeout(self, *_: object, timeout: float) -> str:
        raise Exception(
            "Call to 'jspy_timeout' timed out. Increase the timeout by setting the `timeout` keyword argument."
        )

    def js_error(self, *_: object, timeout: float) -> str:
        raise Exception("Error: unknown action kind fly")  # an answer, if an unwelcome one

    def stuck(self, *_: object, timeout: float) -> str:
        self.release.wait(10)
        return "late"

    def ping(self, *_: object, timeout: float) -> str:
        return "pong"


def _bridge_on(node: _Node) -> Bridge:
    bridge = Bridge(call_margin_s=0.1, limits=LIMITS)
    bridge._check = lambda: None  # type: ignore[method-assign]  # no node process to check
    bridge._executor = _Worker("test-bridge")
    bridge._mod = (node, {})
    bridge.node_watch.node_up(pid=1, generation=1)
    return bridge


def test_calls_timed_out_in_a_row_reach_the_judge_and_an_answer_starts_the_count_again() -> None:
    node = _Node()
    bridge = _bridge_on(node)
    judge = bridge.node_watch.judge
    try:
        for fn in ("jspy_timeout", "jspy_timeout"):
            with pytest.raises(BridgeError):
                bridge.call(fn)
        assert bridge.call("ping") == "pong"
        with pytest.raises(BridgeError):
            bridge.call("js_error")
        with pytest.raises(BridgeError):
            bridge.call("jspy_timeout")
        assert judge.judge(0.0) is None  # the ping and the JS error answered
        with pytest.raises(BridgeDead, match="did not return"):
            bridge.call("stuck", timeout_ms=100)  # Python's own wait ran out
        node.release.set()
        with pytest.raises(BridgeError):
            bridge.call("jspy_timeout")
        verdict = judge.judge(0.0)
        assert verdict is not None and verdict.kind == "timeouts"
        assert verdict.reason == "3 bridge calls in a row timed out (jspy_timeout, stuck, jspy_timeout)"
    finally:
        node.release.set()
        bridge._executor.shutdown()


def _in_flight(bridge: Bridge, what: str | None) -> None:
    """Wait until the bridge thread is in helper `what` (None: in none)."""
    deadline = time.monotonic() + 5
    while (bridge.node_watch.in_flight or (None,))[0] != what:
        assert time.monotonic() < deadline, f"{what} never reached the bridge thread"
        time.sleep(0.01)


def _call_in_thread(bridge: Bridge, out: list[object], *args: object, **kw: object) -> threading.Thread:
    def run() -> None:
        try:
            out.append(bridge.call(*args, **kw))  # type: ignore[arg-type]  # any arguments, passed through
        except Exception as e:  # noqa: BLE001 - the test reads it
            out.append(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_calls_that_never_left_the_queue_behind_a_slow_call_are_no_node_timeouts() -> None:
    node = _Node("slow")
    bridge = _bridge_on(node)
    judge = bridge.node_watch.judge
    out: list[object] = []
    slow = _call_in_thread(bridge, out, "gated", "slow", timeout_ms=10_000)  # legitimate, node beats meanwhile
    try:
        _in_flight(bridge, "gated")
        for _ in range(LIMITS.timeouts_in_a_row):
            t0 = time.monotonic()
            with pytest.raises(BridgeDead, match="never ran: the bridge thread was busy in gated"):
                bridge.call("ping", timeout_ms=100)  # 0.3 s in the queue at most
            assert time.monotonic() - t0 < 2.0  # the caller's wait stays bounded
        assert judge.judge(0.0) is None  # node was never asked: no wedge, no kill
        node.gates["slow"].set()
        slow.join(5)
        assert out == ["slow"] and bridge.call("ping") == "pong"
    finally:
        node.gates["slow"].set()
        bridge._executor.shutdown()


def test_a_calls_time_runs_from_when_the_bridge_thread_takes_it_up() -> None:
    node = _Node("ahead", "mine")
    bridge = _bridge_on(node)
    ahead: list[object] = []
    mine: list[object] = []
    _call_in_thread(bridge, ahead, "gated", "ahead", timeout_ms=10_000)
    try:
        _in_flight(bridge, "gated")
        t0 = time.monotonic()
        waiting = _call_in_thread(bridge, mine, "gated", "mine", timeout_ms=2_800)  # 3.0 s from its start
        time.sleep(2.0)
        node.gates["ahead"].set()  # it starts 2.0 s after it was queued...
        time.sleep(max(0.0, 4.0 - (time.monotonic() - t0)))
        # ...and answers 4.0 s after: past 3.0 s from its queueing, within 3.0 s of its start
        # (a second of slack either side for a loaded machine)
        node.gates["mine"].set()
        waiting.join(5)
        assert mine == ["mine"]
        assert bridge.node_watch.judge.judge(0.0) is None
    finally:
        for gate in node.gates.values():
            gate.set()
        bridge._executor.shutdown()


def test_once_a_goodbye_is_abandoned_while_stopping_the_rest_fail_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bridge_module, "SHUTDOWN_CALL_S", 0.5)
    node = _Node()
    bridge = _bridge_on(node)
    stuck: list[object] = []
    holder = _call_in_thread(bridge, stuck, "stuck", timeout_ms=10_000)  # holds the bridge thread
    try:
        _in_flight(bridge, "stuck")
        bridge.node_watch.judge.beat(time.monotonic(), _beat(1, time.time(), pid=1))  # node still beats
        bridge.begin_shutdown()
        assert bridge.dead_reason is None  # beating: not killed, goodbyes are tried
        t0 = time.monotonic()
        errors = []
        for _ in range(9):  # a fleet of 3: executor shutdown, quit, stopViewer each
            with pytest.raises(BridgeDead) as exc:
                bridge.call("ping", timeout_ms=2_000)
            errors.append(str(exc.value))
        assert time.monotonic() - t0 < 0.5 + 1.0  # one goodbye's wait, not nine (4.5 s)
        assert "shutting down" in errors[0]
        assert all("not sent: the bridge is shutting down, its thread still in stuck" in e for e in errors[1:])
        holder.join(5)
        assert isinstance(stuck[0], BridgeDead)  # the held call's own caller gave up too
        node.release.set()  # the held call comes back: goodbyes are sent again
        _in_flight(bridge, None)
        assert bridge.call("ping") == "pong"
    finally:
        node.release.set()
        bridge._executor.shutdown()


# ---- the heartbeat folder and the wedge's figures -------------------------------------------
def test_a_heartbeat_folder_that_went_is_made_again_at_the_next_spawn_and_read() -> None:
    watch = NodeWatch(LIMITS)
    env = watch.spawn_env()
    folder = Path(env["MCBOT_BRIDGE_HEARTBEAT_FILE"]).parent
    try:
        shutil.rmtree(folder)  # a temp cleaner, or an exiting node's tidy-up
        assert watch.spawn_env() == env and folder.is_dir()  # the next node can beat
        shutil.rmtree(folder)
        watch.node_up(pid=42, generation=1)
        assert watch.observe() is None and folder.is_dir()  # the running node's next beat lands
    finally:
        watch.close()
    assert not folder.exists()


def test_the_kill_of_a_wedged_node_is_dated_on_the_injected_wall_clock() -> None:
    clocks = _Clocks()
    bridge = Bridge(limits=LIMITS)
    bridge.node_watch.clock, bridge.node_watch.wall = (lambda: clocks.mono), (lambda: clocks.wall)
    bridge._signal_kill = lambda: None  # type: ignore[method-assign]  # no node here
    bridge.node_watch.node_up(pid=42, generation=1)
    clocks.advance(6.0)
    bridge._declare_wedged(Verdict("silent", "no heartbeat since the start (6.0 s)"))
    assert bridge.node_watch.wedges[-1].killed_ts == clocks.wall == 1006.0
