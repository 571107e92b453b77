"""`mcbot bench fleet`, its pure half: the fleet sizes parsed, the daemon's config, percentiles,
CPU seconds between two readings of a process tree, which bots need their next walk, who moved,
the marginal RSS, the verdicts (PASS, FAIL, NOT JUDGED) and the table; the CLI's flags. Nothing
is started."""

from __future__ import annotations

import random
import re
import tomllib

import pytest

from bot.cli.bench import _bench_fleet
from bot.cli.main import build_parser
from bot.config.loader import McbotConfig
from bot.tooling.bench_fleet import parse_counts
from bot.tooling.bench_fleet_report import RunResult, add_marginals, table_lines, verdict_lines, verdicts
from bot.tooling.bench_fleet_run import (
    SNAPSHOT_EVERY_S,
    FleetRun,
    bot_names,
    config_text,
    cpu_seconds,
    moved,
    needs_walk,
    positions,
    snapshot_gap,
    start_timeout_s,
)
from bot.tooling.competence import FAIL, NOT_JUDGED, PASS


def result(bots, *, cpu_s=10.0, seconds=60.0, rss=200.0, snaps=(5.0, 6.0, 7.0), still=(), cores=2):
    names = bot_names(bots)
    return RunResult(
        bots=bots,
        seconds=seconds,
        cpu_count=cores,
        daemon_cpu_s=cpu_s,
        rss_mb=rss,
        snapshot_ms=list(snaps),
        moved={n: n not in still for n in names},
    )


def by_id(judged):
    return {v["id"]: v for v in judged}


# -- parsing and config -------------------------------------------------------------------------


def test_fleet_sizes_keep_their_order_and_drop_repeats():
    assert parse_counts("1,5,10,20") == (1, 5, 10, 20)
    assert parse_counts(" 3, 1 ,3") == (3, 1)


@pytest.mark.parametrize("bad", ["0", "1,,2", "a", "100", "-1", "2.5"])
def test_a_fleet_size_out_of_range_or_not_a_number_is_refused(bad):
    with pytest.raises(ValueError, match="number of bots from 1 to 99"):
        parse_counts(bad)


def test_the_config_drives_every_bot_with_no_drive_ticks_hostiles_or_hunger():
    doc = tomllib.loads(config_text(bot_names(20)))
    cfg = McbotConfig.model_validate(doc)  # a config the daemon accepts
    assert [b.username for b in cfg.bots] == [f"fleet{i:02d}" for i in range(1, 21)]
    assert cfg.drive_tick.enabled is False and cfg.server.hostiles is False and cfg.server.hunger_rate == 0.0
    assert cfg.viewer.enabled is False


def test_a_larger_fleet_gets_longer_to_start():
    assert start_timeout_s(20) - start_timeout_s(1) == pytest.approx(57.0)


# -- measurement helpers ------------------------------------------------------------------------


def test_the_snapshot_figures_interpolate_between_ranks():
    r = result(2, snaps=(4.0, 1.0, 3.0, 2.0))
    assert (r.p50, r.p95) == (pytest.approx(2.5), pytest.approx(3.85))
    assert result(2, snaps=()).summary()["snapshot_p50_ms"] is None


def test_cpu_seconds_count_a_new_process_from_zero_and_never_go_negative():
    before = {(10, 1.0): 5.0, (11, 1.0): 2.0}
    after = {(10, 1.0): 8.5, (11, 1.0): 2.0, (12, 7.0): 1.25}  # 12 started in the window
    assert cpu_seconds(before, after) == pytest.approx(4.75)
    reused_pid = {(11, 9.0): 0.5}  # pid 11 again, but another process: its own count
    assert cpu_seconds(before, reused_pid) == pytest.approx(0.5)


def test_a_bot_whose_walk_is_live_is_left_alone_and_the_others_get_a_walk():
    live = [{"metadata": {"bot": "fleet01"}}, {"metadata": {"heldBy": "fleet03"}}, {"metadata": {}}]
    assert needs_walk(bot_names(4), live) == ["fleet02", "fleet04"]


def test_moved_is_horizontal_and_an_unknown_position_did_not_move():
    def view(pos):
        return positions({"bots": [{"name": n, "position": p} for n, p in pos.items()]})

    before = view({"a": {"x": 0, "y": 64, "z": 0}, "b": {"x": 0, "y": 64, "z": 0}, "c": None})
    after = view({"a": {"x": 3, "y": 64, "z": 4}, "b": {"x": 0.5, "y": 70, "z": 0}, "c": {"x": 9, "y": 0, "z": 9}})
    assert moved(before, after) == {"a": True, "b": False, "c": False}


def test_marginal_rss_is_per_bot_added_over_the_smallest_fleet():
    runs = [result(1, rss=200.0), result(5, rss=260.0), result(20, rss=500.0)]
    add_marginals(runs)
    assert [r.marginal_rss_mb for r in runs] == [None, pytest.approx(15.0), pytest.approx(300 / 19)]


def test_cpu_shares_of_all_cores_and_of_two_cores():
    r = result(20, cpu_s=48.0, seconds=60.0, cores=4)
    assert r.cpu_pct == pytest.approx(20.0)  # 0.8 core of 4
    assert r.cpu_pct_two_cores == pytest.approx(40.0)  # 0.8 core of 2
    assert r.summary()["cpu_pct_per_bot"] == pytest.approx(1.0)


# -- verdicts and the table ---------------------------------------------------------------------


def test_the_largest_fleet_is_judged_against_half_of_two_cores():
    ok = by_id(verdicts([result(1, cpu_s=3.0), result(20, cpu_s=59.0)]))["cpu"]
    assert ok["status"] == PASS and "49.2 % of two cores" in ok["detail"] and ok["name"].startswith("20 bots")
    over = by_id(verdicts([result(1, cpu_s=3.0), result(20, cpu_s=61.0)]))["cpu"]
    assert over["status"] == FAIL and "50.8 % of two cores" in over["detail"]


def test_a_fleet_smaller_than_the_target_says_so():
    cpu = by_id(verdicts([result(1), result(3)]))["cpu"]
    assert cpu["name"].startswith("3 bots") and "the target names 20" in cpu["detail"]


def test_snapshot_p50_within_twice_the_one_bot_figure():
    fine = by_id(verdicts([result(1, snaps=[5.0]), result(20, snaps=[10.0])]))["snapshot"]
    assert fine["status"] == PASS and "2.00x" in fine["detail"]
    slow = by_id(verdicts([result(1, snaps=[5.0]), result(20, snaps=[10.5])]))["snapshot"]
    assert slow["status"] == FAIL and "2.10x" in slow["detail"]
    none_answered = by_id(verdicts([result(1), result(20, snaps=[])]))["snapshot"]
    assert none_answered["status"] == FAIL


def test_without_a_one_bot_run_the_snapshot_target_is_not_judged():
    assert by_id(verdicts([result(5), result(20)]))["snapshot"]["status"] == NOT_JUDGED
    assert by_id(verdicts([result(1)]))["snapshot"]["status"] == NOT_JUDGED


def test_a_bot_that_did_not_move_fails_the_walk_check_and_is_named():
    v = by_id(verdicts([result(1), result(5, still=("fleet04",))]))["moved"]
    assert v["status"] == FAIL and "5 bots: fleet04 did not move" in v["detail"]
    assert by_id(verdicts([result(1), result(5)]))["moved"]["status"] == PASS


def test_the_table_has_a_column_per_fleet_and_the_asked_rows():
    runs = [result(1, cpu_s=6.0, rss=220.0), result(20, cpu_s=30.0, rss=600.0, still=("fleet07",))]
    add_marginals(runs)
    lines = table_lines(runs)
    rows = {label: cells for label, *cells in (re.split(r"\s{2,}", line.strip()) for line in lines)}
    assert rows["bots"] == ["1", "20"]
    assert rows["CPU % (of all 2 cores)"] == ["5.0", "25.0"]
    assert rows["CPU % per bot"] == ["5.00", "1.25"]
    assert rows["RSS MB per bot"] == ["220.0", "30.0"]
    assert rows["RSS MB per added bot"] == ["-", "20.0"]
    assert rows["moved bots"] == ["1/1", "19/20"]
    assert rows["snapshot p50 ms"] == ["6.0", "6.0"]
    assert verdict_lines(verdicts(runs))[2].startswith("FAIL")


# -- the CLI ------------------------------------------------------------------------------------


def test_bench_fleet_flags_and_defaults():
    args = build_parser().parse_args(["bench", "fleet"])
    assert (args.bots, args.seconds, args.version, args.out) == ("1,5,10,20", 60.0, None, "bench-results")
    args = build_parser().parse_args(["bench", "fleet", "--bots", "1,3", "--seconds", "20", "--version", "1.18.2"])
    assert (args.bots, args.seconds, args.version) == ("1,3", 20.0, "1.18.2")


def test_a_bad_version_or_fleet_size_exits_invalid(capsys):
    with pytest.raises(SystemExit) as e:
        build_parser().parse_args(["bench", "fleet", "--version", "1.7"])
    assert e.value.code == 4
    assert _bench_fleet(build_parser().parse_args(["bench", "fleet", "--bots", "1,0"])) == 4  # nothing started
    assert "--bots" in capsys.readouterr().err


def test_a_run_names_its_bots_fleet01_upwards(tmp_path):
    run = FleetRun(3, 1.0, "1.21.4", tmp_path / "log", print)
    assert run.names == ["fleet01", "fleet02", "fleet03"] and run.result.bots == 3


def test_snapshot_requests_come_at_random_moments_two_a_second_on_average_at_every_phase():
    """Not every half second: that locks onto the daemon's half-second jobs."""
    rng = random.Random(7)
    gaps = [snapshot_gap(rng) for _ in range(4000)]
    assert all(0 <= g < 2 * SNAPSHOT_EVERY_S for g in gaps)
    assert abs(sum(gaps) / len(gaps) - SNAPSHOT_EVERY_S) < 0.02
    at, phases = 0.0, [0] * 5
    for g in gaps:
        at += g
        phases[int((at % SNAPSHOT_EVERY_S) / SNAPSHOT_EVERY_S * 5)] += 1
    assert min(phases) > 0.15 * len(gaps)  # each fifth of the daemon's half second is hit
