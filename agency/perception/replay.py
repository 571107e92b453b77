"""`ReplayBody`: the `Body` protocol played back from a recorded session (JSONL), with an
injected clock, deterministically. Lets agency code be tested with no node and no server.

File format (written by `mcbot record`):
  line 1: {"kind": "header", "format": 1, "startedAt": <ms>, "versions": {...}, "config": {...}}
  then, in time order, each with "t" = ms since startedAt:
  {"kind": "snapshot", "t": ..., "data": <WorldSnapshot>}
  {"kind": "event",    "t": ..., "data": <BodyEvent>}
  {"kind": "region",   "t": ..., "data": <BlockRegion>}
  {"kind": "action",   "t": ..., "data": <ActionStatus>}   (a terminal action result)
  {"kind": "chat",     "t": ..., "data": {"message": ...}} (something the bot said)
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from agency.errors import SchemaError
from agency.world import ActionState, ActionStatus, BlockRegion, BodyError, BodyEvent, WorldSnapshot

FORMAT_VERSION = 1


class ReplayFormatError(SchemaError):
    """A recording line that does not parse: names the file, the line and the error."""


class ReplayHeader(BaseModel):
    kind: str
    format: int
    startedAt: int
    versions: dict[str, Any] = {}
    config: dict[str, Any] = {}


class Recording:
    """A parsed recording, indexed by time."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.snapshots: list[tuple[int, WorldSnapshot]] = []
        self.events: list[tuple[int, BodyEvent]] = []
        self.regions: list[tuple[int, BlockRegion]] = []
        self.actions: list[tuple[int, ActionStatus]] = []
        self.chats: list[tuple[int, str]] = []
        self.header = self._load()
        self.duration_ms = max(
            [t for t, _ in self.snapshots] + [t for t, _ in self.events] + [t for t, _ in self.regions] + [0]
        )

    def _load(self) -> ReplayHeader:
        header: ReplayHeader | None = None
        with self.path.open(encoding="utf-8") as f:
            for lineno, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                    if header is None:
                        header = ReplayHeader.model_validate(rec)
                        if header.kind != "header" or header.format != FORMAT_VERSION:
                            raise ValueError(f"expected a format {FORMAT_VERSION} header line")
                        continue
                    self._add(rec)
                except ValidationError as e:
                    raise ReplayFormatError(f"{self.path}:{lineno}: {_one_line(e)}") from None
                except (ValueError, KeyError, TypeError) as e:
                    raise ReplayFormatError(f"{self.path}:{lineno}: {e}") from None
        if header is None:
            raise ReplayFormatError(f"{self.path}: empty recording")
        for seq in (self.snapshots, self.events, self.regions, self.actions, self.chats):
            seq.sort(key=lambda pair: pair[0])
        return header

    def _add(self, rec: dict[str, Any]) -> None:
        t, kind, data = int(rec["t"]), rec["kind"], rec["data"]
        if kind == "snapshot":
            self.snapshots.append((t, WorldSnapshot.model_validate(data)))
        elif kind == "event":
            self.events.append((t, BodyEvent.model_validate(data)))
        elif kind == "region":
            self.regions.append((t, BlockRegion.model_validate(data)))
        elif kind == "action":
            self.actions.append((t, ActionStatus.model_validate(data)))
        elif kind == "chat":
            self.chats.append((t, str(data["message"])))
        else:
            raise ValueError(f"unknown record kind {kind!r}")


class ReplayBody:
    """Plays a Recording back. `clock()` returns ms since the recording's start.

    - snapshot(): the latest snapshot at or before now (BodyError before the first one);
    - events(): events with t in (last drain, now], each delivered once;
    - region(): the latest recorded region at or before now that covers the requested box;
    - actions: started actions complete with the next recorded result of the same kind, in
      order (BodyError when the recording holds no more of that kind);
    - chat(): recorded into `said` for assertions.
    """

    def __init__(self, recording: Recording | str | Path, clock: Callable[[], int]) -> None:
        self.recording = recording if isinstance(recording, Recording) else Recording(recording)
        self.clock = clock
        self._events_until = -1
        self._snap_times = [t for t, _ in self.recording.snapshots]
        self._action_cursor: dict[str, int] = {}
        self._started: dict[str, ActionStatus] = {}
        self.said: list[str] = []

    def snapshot(self) -> WorldSnapshot:
        i = bisect.bisect_right(self._snap_times, self.clock()) - 1
        if i < 0:
            raise BodyError("no snapshot recorded yet at this time")
        return self.recording.snapshots[i][1]

    def events(self) -> list[BodyEvent]:
        now = self.clock()
        out = [ev for t, ev in self.recording.events if self._events_until < t <= now]
        self._events_until = max(self._events_until, now)
        return out

    def region(self, origin: tuple[int, int, int], size: tuple[int, int, int]) -> BlockRegion:
        now = self.clock()
        for t, reg in reversed(self.recording.regions):
            if t > now:
                continue
            if _covers(reg, origin, size):
                return reg
        raise BodyError(f"no recorded region covers origin={origin} size={size} at t={now}")

    def start_action(self, kind: str, args: dict[str, Any]) -> ActionStatus:
        recorded = [st for _, st in self.recording.actions if st.kind == kind]
        cursor = self._action_cursor.get(kind, 0)
        if cursor >= len(recorded):
            raise BodyError(f"recording holds no further '{kind}' action result")
        self._action_cursor[kind] = cursor + 1
        status = recorded[cursor]
        self._started[status.id] = status
        return status.model_copy(update={"state": ActionState.running, "endedAt": None, "result": None, "error": None})

    def poll_action(self, action_id: str) -> ActionStatus:
        if action_id not in self._started:
            raise BodyError(f"no action with id {action_id}")
        return self._started[action_id]

    def cancel_action(self, action_id: str) -> ActionStatus:
        return self.poll_action(action_id)

    def chat(self, message: str) -> None:
        self.said.append(message)


def _one_line(e: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in e.errors())


def _covers(reg: BlockRegion, origin: tuple[int, int, int], size: tuple[int, int, int]) -> bool:
    return all(reg.origin[i] <= origin[i] and origin[i] + size[i] <= reg.origin[i] + reg.size[i] for i in range(3))
