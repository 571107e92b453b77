"""Progress lines of the long commands (bot/tooling/progress.py) on an injected clock, and a
bench child's progress passed on as it comes (bot/tooling/bench.py run_relaying, a real
child process)."""

from __future__ import annotations

import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from bot.tooling.bench import run_relaying
from bot.tooling.progress import Progress, clock_text


class Clock:
    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.mark.parametrize(
    "seconds,text", [(0, "0:00"), (7.4, "0:07"), (59.6, "1:00"), (725, "12:05"), (3723, "1:02:03"), (-3, "0:00")]
)
def test_clock_text(seconds, text):
    assert clock_text(seconds) == text


def test_a_line_per_step_with_the_time_so_far_and_the_time_left_from_the_mean_step():
    clock, said = Clock(), []
    p = Progress("bench reflexes", said.append, clock)
    p.note("starting the embedded world at 1.21.4")
    clock.t += 40  # the set-up: not a step's time
    p.begin(4, "4 rounds")
    clock.t += 10
    p.step(1, "round 1/1 zombie (watch): 31 ms")
    clock.t += 30
    p.step(2, "round 1/1 spider (watch): 8 ms")
    clock.t += 20
    p.step(4, "round 1/1 creeper (watch): 19 ms")
    assert said == [
        "bench reflexes: starting the embedded world at 1.21.4 (0:00 elapsed)",
        "bench reflexes: 4 rounds (0:40 elapsed)",
        "bench reflexes: 1/4 round 1/1 zombie (watch): 31 ms (0:50 elapsed, about 0:30 left)",  # 10 s a step
        "bench reflexes: 2/4 round 1/1 spider (watch): 8 ms (1:20 elapsed, about 0:40 left)",  # 20 s a step
        "bench reflexes: 4/4 round 1/1 creeper (watch): 19 ms (1:40 elapsed)",  # the last: nothing left
    ]


def test_a_heartbeat_is_due_when_nothing_was_said_for_its_period():
    clock, said = Clock(), []
    p = Progress("[Bench fleet] N=5", said.append, clock)
    assert not p.due(30)
    clock.t += 29.9
    assert not p.due(30)
    clock.t += 0.1
    assert p.due(30)
    p.note("measuring, 30/60 s")
    assert not p.due(30) and said == ["[Bench fleet] N=5: measuring, 30/60 s (0:30 elapsed)"]


def _child(script: str) -> list[str]:
    return [sys.executable, "-c", textwrap.dedent(script)]


def test_a_bench_childs_progress_is_passed_on_as_it_comes_and_its_log_kept_for_a_failure():
    """The child waits for a file the relay's first line creates: the line was passed on
    while the child ran, not after it ended."""
    said: list[str] = []
    script = """
        import json, os, sys, time
        print("12:00:00.000 | INFO    | embedded server ready", file=sys.stderr, flush=True)
        print("bench reflexes: 1/2 round 1/1 zombie (watch): 31 ms (0:05 elapsed)", file=sys.stderr, flush=True)
        deadline = time.monotonic() + 20
        while not os.path.exists(sys.argv[1]) and time.monotonic() < deadline:
            time.sleep(0.01)
        print("bench reflexes: 2/2 round 1/1 creeper (watch): 19 ms (0:09 elapsed)", file=sys.stderr, flush=True)
        print(json.dumps({"relayed_first": os.path.exists(sys.argv[1])}))
    """
    with tempfile.TemporaryDirectory() as folder:
        flag = Path(folder) / "seen"

        def say(line: str) -> None:
            said.append(line)
            flag.touch()

        code, stdout, stderr = run_relaying([*_child(script), str(flag)], {}, "bench reflexes:", "[1.18.2] ", 30, say)
    assert (code, stdout) == (0, '{"relayed_first": true}\n')
    assert said == [
        "[1.18.2] bench reflexes: 1/2 round 1/1 zombie (watch): 31 ms (0:05 elapsed)",
        "[1.18.2] bench reflexes: 2/2 round 1/1 creeper (watch): 19 ms (0:09 elapsed)",
    ]
    assert stderr == "12:00:00.000 | INFO    | embedded server ready"


def test_a_bench_child_past_its_time_is_killed():
    said: list[str] = []
    t0 = time.monotonic()
    ran = run_relaying(_child("import time\ntime.sleep(60)\n"), {}, "bench x:", "", 1.0, said.append)
    assert ran is None and time.monotonic() - t0 < 20 and said == []


def test_a_failing_bench_childs_exit_code_and_log_come_back():
    code, stdout, stderr = run_relaying(
        _child("import sys\nprint('Traceback: boom', file=sys.stderr)\nsys.exit(3)\n"),
        {},
        "bench x:",
        "",
        30,
        [].append,
    )
    assert (code, stdout, stderr) == (3, "", "Traceback: boom")
