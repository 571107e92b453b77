"""Prometheus text exposition for /metrics: agency counters, job runs and errors, bridge
call latency, stream and task sizes; a bot's series are labelled with its name (`bot`)."""

from __future__ import annotations

from typing import Any


def _line(out: list[str], name: str, value: float, labels: dict[str, str] | None = None) -> None:
    lab = ""
    if labels:
        lab = "{" + ",".join(f'{k}="{v}"' for k, v in labels.items()) + "}"
    out.append(f"{name}{lab} {value}")


def render_metrics(daemon: Any, agencies: dict[str, Any]) -> str:
    """agencies: each bot's agency by name; series of one bot carry its name as `bot`."""
    out: list[str] = []
    out.append("# HELP mcbot_agency_counter Agency counters (monotonic within a session).")
    out.append("# TYPE mcbot_agency_counter counter")
    for bot, agency in agencies.items():
        for name, value in agency.counters.snapshot().items():
            if name != "startedAtMs":
                _line(out, "mcbot_agency_counter", value, {"name": name, "bot": bot})
    out.append("# TYPE mcbot_job_runs_total counter")
    out.append("# TYPE mcbot_job_errors_total counter")
    out.append("# TYPE mcbot_job_seconds_total counter")
    for name, spec in daemon.scheduler.jobs.items():
        _line(out, "mcbot_job_runs_total", spec.stats.runs, {"job": name})
        _line(out, "mcbot_job_errors_total", spec.stats.errors, {"job": name})
        _line(out, "mcbot_job_seconds_total", round(spec.stats.total_s, 6), {"job": name})
    bridge = daemon.bridge
    out.append("# HELP mcbot_bridge_calls_total Calls through the JS bridge.")
    out.append("# TYPE mcbot_bridge_calls_total counter")
    _line(out, "mcbot_bridge_calls_total", bridge.calls if bridge else 0)
    out.append("# TYPE mcbot_bridge_call_seconds_total counter")
    _line(out, "mcbot_bridge_call_seconds_total", round(bridge.call_seconds, 6) if bridge else 0)
    out.append("# HELP mcbot_bridge_helper_calls_total Calls through the JS bridge by bridge.js helper.")
    out.append("# TYPE mcbot_bridge_helper_calls_total counter")
    for fn, n in sorted(bridge.helper_calls().items()) if bridge else ():
        _line(out, "mcbot_bridge_helper_calls_total", n, {"fn": fn})
    out.append("# TYPE mcbot_bridge_alive gauge")
    _line(out, "mcbot_bridge_alive", int(bool(bridge and bridge.alive)))
    wedges, detect_s, rebuild_s = bridge.node_watch.figures() if bridge else (0, None, None)
    out.append("# HELP mcbot_bridge_wedges_total Nodes the bridge watchdog found wedged and killed.")
    out.append("# TYPE mcbot_bridge_wedges_total counter")
    _line(out, "mcbot_bridge_wedges_total", wedges)
    out.append("# HELP mcbot_bridge_last_wedge_detect_seconds The last wedge: from its onset to its detection.")
    out.append("# TYPE mcbot_bridge_last_wedge_detect_seconds gauge")
    if detect_s is not None:
        _line(out, "mcbot_bridge_last_wedge_detect_seconds", round(detect_s, 3))
    out.append("# HELP mcbot_bridge_last_wedge_rebuild_seconds The last wedge: from its onset to a new node up.")
    out.append("# TYPE mcbot_bridge_last_wedge_rebuild_seconds gauge")
    if rebuild_s is not None:
        _line(out, "mcbot_bridge_last_wedge_rebuild_seconds", round(rebuild_s, 3))
    out.append("# TYPE mcbot_bot_connected gauge")
    out.append("# TYPE mcbot_stream_thoughts gauge")
    for bot, agency in agencies.items():
        _line(out, "mcbot_bot_connected", int(bool(agency.body is not None and agency.body.connected)), {"bot": bot})
        _line(out, "mcbot_stream_thoughts", agency.stream.count(), {"bot": bot})
    out.append("# TYPE mcbot_tasks gauge")
    first = next(iter(agencies.values()))  # one store for every bot
    for status, n in first.tasks.counts_by_status().items():  # one GROUP BY, not a read per status
        _line(out, "mcbot_tasks", n, {"status": status})
    return "\n".join(out) + "\n"
