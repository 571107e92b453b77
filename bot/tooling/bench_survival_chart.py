"""The PNG timeline of `mcbot bench survival`: one row per run (version, seed), the tech
tree's milestones as coloured marks at their game time (in game days), deaths as red
crosses, the target's 3-day line dashed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.tooling.bench_survival_targets import IRON_DAYS
from bot.tooling.competence import GAME_S_PER_DAY, MILESTONES


def write_timeline(runs: list[dict[str, Any]], path: Path, title: str) -> None:
    import matplotlib  # noqa: PLC0415 - only the bench draws

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415 - after the backend is chosen above

    colours = plt.get_cmap("tab20")
    fig, ax = plt.subplots(figsize=(11, 1.6 + 0.55 * max(1, len(runs))))
    span = max([IRON_DAYS] + [r["game_days"] or 0 for r in runs])
    for row, r in enumerate(runs):
        y = len(runs) - 1 - row
        ax.hlines(y, 0, r["game_days"] or 0, color="lightgrey", lw=6, zorder=1)
        for i, ms in enumerate(MILESTONES):
            g = r["milestones"].get(ms)
            if g is not None:
                ax.scatter(
                    g / GAME_S_PER_DAY,
                    y,
                    color=colours(i % 20),
                    s=60,
                    zorder=3,
                    edgecolor="black",
                    lw=0.4,
                    label=None if ms in _labels(ax) else ms,
                )
        for d in r["deaths"]:
            if d["game_s"] is not None:
                ax.scatter(
                    d["game_s"] / GAME_S_PER_DAY,
                    y,
                    marker="x",
                    color="red",
                    s=80,
                    zorder=4,
                    label="death" if "death" not in _labels(ax) else None,
                )
    ax.axvline(IRON_DAYS, ls="--", color="grey", lw=1)
    ax.set_yticks(range(len(runs)), [f"{r['version']} seed {r['seed']}" for r in reversed(runs)])
    ax.set_xlim(0, span * 1.02)
    ax.set_ylim(-0.7, len(runs) - 0.3)
    ax.set_xlabel("game days since the run began (target: iron pickaxe by the dashed line)")
    ax.set_title(title, fontsize=10)
    handles, labels = ax.get_legend_handles_labels()
    order = sorted(
        range(len(labels)),
        key=lambda i: (*MILESTONES, "death").index(labels[i]) if labels[i] in (*MILESTONES, "death") else 99,
    )
    ax.legend(
        [handles[i] for i in order],
        [labels[i] for i in order],
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        fontsize=7,
        frameon=False,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def _labels(ax: Any) -> list[str]:
    return ax.get_legend_handles_labels()[1]
