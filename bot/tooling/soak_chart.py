"""The soak's chart: counters and task states over time, nights shaded, verified shelters marked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.tooling.soak_criteria import shelters


def write_chart(samples: list[dict[str, Any]], path: Path) -> None:
    import matplotlib  # noqa: PLC0415 - only the soak draws

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415 - after the backend is chosen above

    ts = [s["t"] / 60 for s in samples]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    for name in ("driveTicks", "goalTags", "llmCalls", "intentExtractions"):
        top.plot(ts, [s["counters"].get(name, 0) for s in samples], label=name)
    top.set_ylabel("counter")
    top.legend(loc="upper left", fontsize=8)
    for status in ("pending", "active", "completed", "failed", "paused", "unplannable"):
        bottom.plot(ts, [sum(t["status"] == status for t in s["tasks"]) for s in samples], label=status)
    # night shading (isDay False) over each run of consecutive night samples, up to the next sample
    i = 0
    while i < len(samples):
        if samples[i].get("isDay") is False:
            j = i
            while j + 1 < len(samples) and samples[j + 1].get("isDay") is False:
                j += 1
            end = ts[min(j + 1, len(ts) - 1)]
            for ax in (top, bottom):
                ax.axvspan(ts[i], end, color="grey", alpha=0.15, lw=0)
            i = j + 1
        else:
            i += 1
    marks = [
        item["firstCompletedAt"] / 60
        for item in shelters(samples)["items"]
        if item["verified"] and item["firstCompletedAt"] is not None
    ]
    for n, x in enumerate(marks):
        bottom.axvline(x, ls="--", color="green", lw=1, label="shelter verified" if n == 0 else None)
    bottom.set_ylabel("tasks")
    bottom.set_xlabel("minutes")
    bottom.legend(loc="upper left", fontsize=8)
    fig.suptitle("mcbot soak: agency counters and task states")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
