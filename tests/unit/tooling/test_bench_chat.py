"""mcbot bench chat's table and verdict (bot/tooling/bench_chat.py); the rounds themselves need
a world and run in make bench."""

from __future__ import annotations

from bot.tooling.bench_chat import _print_table


def _result(flood_p95: float | None, missed: int = 0) -> dict:
    mode = {"n": 10 - missed, "missed": missed, "p50_ms": 200.0, "p95_ms": flood_p95, "max_ms": flood_p95}
    return {"rounds": 10, "body_s": 0.5, "flood_per_s": 10, "modes": {"quiet": dict(mode, missed=0), "flood": mode}}


def test_the_table_shows_both_modes_side_by_side_with_the_verdict(capsys):
    ok, late = _result(498.0), _result(1200.0, missed=1)
    ok["target_met"], late["target_met"] = True, False
    _print_table({"26.1": ok, "1.18.2": late})
    out = capsys.readouterr().out.splitlines()
    assert "flood p95 < 1000 ms" in out[0] and "every 0.5 s" in out[0]
    assert "quiet p50 / p95 / max" in out[1] and "flood p50 / p95 / max" in out[1]
    assert out[2].startswith("26.1") and "200 / 498 / 498" in out[2] and out[2].endswith("yes")
    assert out[3].startswith("1.18.2") and "(1 missed)" in out[3] and out[3].endswith("NO")
