"""`mcbot eval report RUN_DIR...`: runs side by side, as a terminal table and as one
self-contained HTML page with inline SVG bar charts (no plotting dependency, no scripts),
one chart per metric with a bar per run labelled suite/profile/model.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agency.errors import InvalidInputError

RATE_METRICS = ("action_rate", "grounding_pass_rate", "repetition_rate", "compulsion_proxy")
LATENCY_METRICS = ("latency_p50_ms", "latency_p95_ms")
PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f")


class ReportError(InvalidInputError):
    pass


@dataclass(frozen=True)
class RunSummary:
    path: Path
    data: dict[str, Any]

    @property
    def label(self) -> str:
        d = self.data
        models = ",".join(d.get("model", {}).get("ids", [])) or "?"
        return f"{d.get('suite')}/{d.get('profile')}/{models}/{d.get('run_id')}"

    def metric(self, name: str) -> float:
        value = self.data.get("metrics", {}).get(name, 0)
        return float(value) if isinstance(value, (int, float)) else 0.0


def load_runs(dirs: list[Path]) -> list[RunSummary]:
    runs = []
    for d in dirs:
        f = d / "summary.json"
        try:
            runs.append(RunSummary(d, json.loads(f.read_text(encoding="utf-8"))))
        except (OSError, json.JSONDecodeError) as e:
            raise ReportError(f"{f}: not a readable eval summary ({e})") from None
    return runs


def _row(r: RunSummary) -> list[str]:
    d, m = r.data, r.data.get("metrics", {})
    halluc = m.get("hallucination_count", {}).get("total", 0)
    return [
        r.label,
        str(d.get("mode")),
        str(m.get("scenarios", 0)),
        *(f"{r.metric(k):.3f}" for k in RATE_METRICS),
        str(halluc),
        *(f"{r.metric(k):.0f}" for k in LATENCY_METRICS),
        str(d.get("verdict")),
    ]


HEADER = [
    "run",
    "mode",
    "n",
    "action",
    "grounding",
    "repetition",
    "compulsion",
    "halluc",
    "p50_ms",
    "p95_ms",
    "verdict",
]


def render_table(runs: list[RunSummary]) -> str:
    rows = [HEADER] + [_row(r) for r in runs]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER))]
    lines = [
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True)))
        for row in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _bar_chart(title: str, runs: list[RunSummary], metric: str, scale_max: float | None) -> str:
    values = [r.metric(metric) for r in runs]
    top = scale_max if scale_max is not None else max([*values, 1.0])
    bar_w, gap, height, left = 36, 14, 160, 40
    width = left + len(runs) * (bar_w + gap) + gap
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 40}" role="img" '
        f'aria-label="{html.escape(title)}">',
        f'<text x="4" y="14" font-size="12" font-family="sans-serif">{html.escape(title)}</text>',
        f'<line x1="{left}" y1="{height + 20}" x2="{width}" y2="{height + 20}" stroke="#888"/>',
    ]
    for i, (r, v) in enumerate(zip(runs, values, strict=True)):
        h = 0 if top <= 0 else int(height * min(v, top) / top)
        x = left + gap + i * (bar_w + gap)
        color = PALETTE[i % len(PALETTE)]
        parts.append(
            f'<rect x="{x}" y="{height + 20 - h}" width="{bar_w}" height="{h}" fill="{color}">'
            f"<title>{html.escape(r.label)}: {v:g}</title></rect>"
        )
        parts.append(
            f'<text x="{x + bar_w / 2}" y="{height + 16 - h}" font-size="10" text-anchor="middle" '
            f'font-family="sans-serif">{v:.2f}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def render_html(runs: list[RunSummary]) -> str:
    legend = "".join(
        f'<li><span style="background:{PALETTE[i % len(PALETTE)]}">&nbsp;&nbsp;&nbsp;</span> '
        f"{html.escape(r.label)} ({html.escape(str(r.path))})</li>"
        for i, r in enumerate(runs)
    )
    table_rows = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in _row(r)) + "</tr>" for r in runs)
    charts = [_bar_chart(m, runs, m, 1.0) for m in RATE_METRICS]
    charts += [_bar_chart(m, runs, m, None) for m in LATENCY_METRICS]
    halluc = "".join(
        f"<tr><td>{html.escape(r.label)}</td>"
        + "".join(
            f"<td>{r.data.get('metrics', {}).get('hallucination_count', {}).get(c, 0)}</td>"
            for c in ("missing_entity", "missing_item", "missing_location", "total")
        )
        + "</tr>"
        for r in runs
    )
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>mcbot eval report</title>"
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child{text-align:left}"
        ".charts svg{margin:0 1em 1em 0}</style></head><body>"
        "<h1>mcbot eval report</h1><ul>" + legend + "</ul>"
        "<table><tr>" + "".join(f"<th>{h}</th>" for h in HEADER) + "</tr>" + table_rows + "</table>"
        "<h2>Metrics per run</h2><div class='charts'>" + "".join(charts) + "</div>"
        "<h2>Hallucinations by category</h2><table><tr><th>run</th><th>missing_entity</th><th>missing_item</th>"
        "<th>missing_location</th><th>total</th></tr>" + halluc + "</table></body></html>\n"
    )
