"""projectIncomingMetadata (docs/contracts.md TASK-1, TASK-3, TASK-4): the only way caller
metadata enters a stored task.

Only PROPAGATED_META_KEYS survive; rebuilt keys are add_task's own business; anything else
is dropped, and in dev mode each dropped key is reported once per store session so
allowlist drift shows up early instead of as silently missing data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from agency.planning.tasks.models import PROPAGATED_META_KEYS, REBUILT_META_KEYS


def project_incoming_metadata(
    incoming: Mapping[str, Any] | None,
    *,
    on_dropped: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in (incoming or {}).items():
        if key in PROPAGATED_META_KEYS:
            if value is None or (key == "goalKey" and value == ""):
                continue  # '' -> skip: an empty goal key is absent, never stored
            out[key] = value
        elif key not in REBUILT_META_KEYS and on_dropped is not None:
            on_dropped(key)
    return out
