"""The PNG of `mcbot world compare`: the share of air below the ground by height band (caves),
and each ore per chunk, the embedded world's bars next to each real vanilla sample's."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def write_chart(data: dict[str, Any], path: Path) -> None:
    import matplotlib  # noqa: PLC0415 - only the compare draws

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415 - after the backend is chosen above

    worlds = {"ours": data["ours"], **data["vanilla"]}
    names = list(worlds)
    width = 0.8 / len(names)
    fig, (caves, ores) = plt.subplots(1, 2, figsize=(13, 6))
    ours = data["ours"]
    bands = [i for i in range(len(ours["underground"])) if any(w["underground"][i] for w in worlds.values())]
    for k, name in enumerate(names):
        w = worlds[name]
        share = [w["undergroundAir"][i] / w["underground"][i] if w["underground"][i] else 0 for i in bands]
        caves.barh([b + k * width for b in range(len(bands))], share, height=width, label=name)
        per = max(1, w["chunks"])
        totals = [sum(w["ores"][o]) / per for o in ours["ores"]]
        ores.bar([o + k * width for o in range(len(totals))], totals, width=width, label=name)
    caves.set_yticks(
        [b + 0.4 - width / 2 for b in range(len(bands))],
        [f"y {ours['minY'] + i * ours['band']}" for i in bands],
    )
    caves.set_xlabel("share of air below the ground (caves)")
    caves.legend(fontsize=8)
    ores.set_xticks([o + 0.4 - width / 2 for o in range(len(ours["ores"]))], list(ours["ores"]), rotation=30)
    ores.set_ylabel("ore blocks per chunk")
    fig.suptitle(
        f"the embedded world (seed {data['seed']}, {data['version']}) next to real vanilla chunks", fontsize=10
    )
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
