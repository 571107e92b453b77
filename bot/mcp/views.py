"""What the MCP tools return, shaped from the daemon's JSON: short, the fields a model
reads (a whole task row is mostly bookkeeping)."""

from __future__ import annotations

from typing import Any


def inventory_view(snapshot: dict[str, Any]) -> dict[str, Any]:
    """Items held, summed by name (a snapshot lists stacks)."""
    items: dict[str, int] = {}
    for stack in snapshot.get("inventory") or []:
        items[stack["name"]] = items.get(stack["name"], 0) + int(stack.get("count", 0))
    return {
        "items": dict(sorted(items.items())),
        "stacks": len(snapshot.get("inventory") or []),
        "total": sum(items.values()),
    }


def entities_view(snapshot: dict[str, Any], radius: float, hostile_only: bool = False) -> dict[str, Any]:
    """Entities the snapshot saw within `radius`, nearest first."""
    near = [
        e
        for e in snapshot.get("entities") or []
        if e.get("distance", 0.0) <= radius and (e.get("hostile") or not hostile_only)
    ]
    near.sort(key=lambda e: e.get("distance", 0.0))
    return {
        "position": snapshot.get("position"),
        "radius": radius,
        "hostiles": snapshot.get("hostiles", 0),  # the snapshot's threat count (within the bot's hostile radius)
        "count": len(near),
        "entities": [
            {
                "name": e.get("name"),
                "type": e.get("type"),
                "hostile": e.get("hostile", False),
                "distance": round(e.get("distance", 0.0), 1),
                "position": e.get("position"),
            }
            for e in near
        ],
    }


def task_view(task: dict[str, Any]) -> dict[str, Any]:
    """A task as `mcbot tasks` shows it: id, status, progress, origin, goal, reason."""
    meta = task.get("metadata") or {}
    reason = meta.get("blockedReason") or (meta.get("solver") or {}).get("failureReason")
    view = {
        "id": task.get("id"),
        "title": task.get("title"),
        "status": task.get("status"),
        "progress": round(float(task.get("progress") or 0.0), 2),
        "origin": (meta.get("origin") or {}).get("kind"),
        "goalKey": meta.get("goalKey"),
        "reason": reason,
    }
    return {k: v for k, v in view.items() if v is not None}
