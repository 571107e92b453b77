"""Cognitive stream (keep-alive spec B): durable thoughts, the opt-in actionable feed, ack.

Thoughts live in the agency SQLite file (table `thoughts`, migration 2), so unprocessed
thoughts survive a restart. Rules enforced here, whatever the publisher:

- SC-B3: every thought is stored with processed=false; only ack() sets processed=true,
  stamping processedBy and processedAt.
- KA-A8: a thought published with convertEligible=true but without metadata.extractedGoal
  and metadata.grounding.pass=true is REFUSED AS ACTIONABLE, not rejected: it is stored
  with convertEligible forced to false and metadata.convertEligibleRefused saying why. The
  thought stays visible in /recent (it is still cognition), but can never reach planning.
- SC-B1: actionable() returns only unprocessed convertEligible=true thoughts, oldest
  first, so a backlog drains in order and nothing starves behind newer thoughts.
- SC-B4: a hard cap on stored thoughts. Going over it prunes, in one transaction with the
  insert, down to a low-water mark: oldest non-actionable thoughts first (processed ones
  and percepts), actionable ones only if non-actionable ones are not enough.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Any, ContextManager, Iterable, Iterator, Mapping

from loguru import logger

from agency.clock import Clock, system_clock_ms
from agency.db import Database, DatabaseSource
from agency.log_rate import LogOnChange, LogRate
from agency.thoughts import Thought

DEFAULT_MAX_THOUGHTS = 5_000
WAL_SIZE_LIMIT = 1 << 20  # bytes
LOW_WATER_FRACTION = 0.9  # prune to 90% of the cap, so a flood prunes once per ~10% of cap
MAX_PAGE = 1_000  # largest page one read returns, whatever the caller asks
DEFAULT_PROCESSED_BY = "planning"

_ACTIONABLE_SQL = "processed = 0 AND convert_eligible = 1"


class StoredThought(Thought):
    """A thought as the stream serves it: plus who acked it and when (null until acked)."""

    processedBy: str | None = None
    processedAt: int | None = None


@dataclass(frozen=True)
class ActionableFeed:
    thoughts: list[StoredThought]
    queue_size: int  # unprocessed thoughts in the stream
    filtered_out: int  # unprocessed thoughts the opt-in filter kept out (convertEligible not true)

    @property
    def count(self) -> int:
        return len(self.thoughts)

    def __iter__(self) -> Iterator[StoredThought]:
        return iter(self.thoughts)

    def __len__(self) -> int:
        return len(self.thoughts)


@dataclass(frozen=True)
class AckResult:
    requested: list[str]  # distinct ids asked for, in request order
    acked: list[str]  # flipped to processed by this call
    already_processed: list[str] = field(default_factory=list)  # acked before: left unchanged
    unknown: list[str] = field(default_factory=list)  # no such thought (never stored, or pruned)


@dataclass(frozen=True)
class PruneResult:
    before: int
    after: int
    dropped_non_actionable: int
    dropped_actionable: int

    @property
    def dropped(self) -> int:
        return self.before - self.after


def convert_eligible_refusal(thought: Thought) -> str | None:
    """Why a convertEligible=true thought may not be actionable (KA-A8), or None if it may."""
    if thought.convertEligible is not True:
        return None
    if thought.metadata.extractedGoal is None:
        return "missing_extractedGoal"
    grounding = thought.metadata.grounding
    if not isinstance(grounding, Mapping) or grounding.get("pass") is not True:
        return "grounding_not_passed"
    return None


def _check_limit(limit: int) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise ValueError(f"limit must be a non-negative integer, got {limit!r}")
    return min(limit, MAX_PAGE)


class CognitiveStream:
    def __init__(
        self,
        path: DatabaseSource,
        *,
        clock: Clock = system_clock_ms,
        max_thoughts: int = DEFAULT_MAX_THOUGHTS,
    ) -> None:
        if max_thoughts < 1:
            raise ValueError("max_thoughts must be at least 1")
        self._db = Database.of(path)  # a path: a connection of its own; a Database: the shared one
        self._conn = self._db.conn
        # when SQLite's own checkpoint restarts the WAL, it cuts the file back to this size
        self._conn.execute(f"PRAGMA journal_size_limit = {WAL_SIZE_LIMIT}")
        self._clock = clock
        self._cap = max_thoughts
        self._low_water = max(1, int(max_thoughts * LOW_WATER_FRACTION))
        # logged on every publish and every planning poll: rate-limited so INFO stays readable
        self._published_log = LogRate("[Cognition] thought_published processed=false",
                                      clock=lambda: clock() / 1000)
        self._actionable_logs = (LogOnChange(), LogOnChange())

    @property
    def max_thoughts(self) -> int:
        return self._cap

    # -- plumbing ---------------------------------------------------------------

    def _tx(self) -> ContextManager[sqlite3.Connection]:
        return self._db.tx()

    def _read(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:
        return self._conn.execute(sql, tuple(params)).fetchall()

    @staticmethod
    def _row_to_thought(row: sqlite3.Row) -> StoredThought:
        # Columns own the processing state; the JSON blob is written once at publish.
        t = StoredThought.model_validate_json(row["data"])
        return t.model_copy(
            update={
                "processed": bool(row["processed"]),
                "processedBy": row["processed_by"],
                "processedAt": row["processed_at"],
            }
        )

    @staticmethod
    def _count(conn: sqlite3.Connection, where: str = "1") -> int:
        return int(conn.execute(f"SELECT COUNT(*) FROM thoughts WHERE {where}").fetchone()[0])

    # -- writing ----------------------------------------------------------------

    def publish(self, thought: Thought | Mapping[str, Any]) -> StoredThought:
        """Store a thought and return it as stored. Publishing an id that already exists
        returns the stored one unchanged (a retried publish must never reset processed)."""
        t = StoredThought.model_validate(thought.model_dump() if isinstance(thought, Thought) else thought)
        if t.processed or t.processedBy is not None or t.processedAt is not None:
            logger.warning("[Cognition] publish ignored processed=true on {}: only ack sets it", t.id)
        t = t.model_copy(update={"processed": False, "processedBy": None, "processedAt": None})
        refusal = convert_eligible_refusal(t)
        if refusal is not None:
            logger.warning("[Cognition] convertEligible=true requires extractedGoal+grounding_pass id={}", t.id)
            meta = t.metadata.model_copy(update={"convertEligibleRefused": refusal})
            t = t.model_copy(update={"convertEligible": False, "metadata": meta})
        pruned: PruneResult | None = None
        with self._tx() as conn:
            existing = conn.execute("SELECT * FROM thoughts WHERE id = ?", (t.id,)).fetchone()
            if existing is not None:
                logger.debug("[CognitiveStream] publish of existing id {} ignored", t.id)
                return self._row_to_thought(existing)
            conn.execute(
                "INSERT INTO thoughts (id, ts, processed, convert_eligible, data) VALUES (?, ?, 0, ?, ?)",
                (t.id, t.timestamp, 1 if t.convertEligible is True else 0, t.model_dump_json()),
            )
            if self._count(conn) > self._cap:
                pruned = self._prune_in_tx(conn, self._low_water)
        self._published_log.log("[Cognition] thought_published processed=false")
        if pruned is not None:
            self._log_prune(pruned)
        return t

    def ack(self, thought_ids: Iterable[str], processed_by: str = DEFAULT_PROCESSED_BY) -> AckResult:
        """Mark thoughts processed (I-4: planning owns this). Idempotent: re-acking leaves
        the first processedBy/processedAt in place."""
        if not processed_by:
            raise ValueError("processed_by must name who processed the thoughts")
        requested = list(dict.fromkeys(i for i in thought_ids if isinstance(i, str)))
        acked: list[str] = []
        already: list[str] = []
        unknown: list[str] = []
        now = self._clock()
        with self._tx() as conn:
            for tid in requested:
                row = conn.execute("SELECT processed FROM thoughts WHERE id = ?", (tid,)).fetchone()
                if row is None:
                    unknown.append(tid)
                elif row["processed"]:
                    already.append(tid)
                else:
                    conn.execute(
                        "UPDATE thoughts SET processed = 1, processed_by = ?, processed_at = ? WHERE id = ?",
                        (processed_by, now, tid),
                    )
                    acked.append(tid)
        logger.info("[CognitiveStream] Acked {}/{} thoughts", len(acked), len(requested))
        return AckResult(requested=requested, acked=acked, already_processed=already, unknown=unknown)

    def prune(self, target: int | None = None) -> PruneResult:
        """Prune down to target (default: the low-water mark) if above it, then checkpoint
        the WAL. For a scheduled job; publish() already keeps the stream under the cap."""
        with self._tx() as conn:
            result = self._prune_in_tx(conn, self._low_water if target is None else max(0, target))
        if result.dropped:
            self._log_prune(result)
        self.checkpoint_wal()
        return result

    def checkpoint_wal(self) -> bool:
        """Copy the WAL into the database and cut it to 0 bytes: SQLite's own checkpoints
        never shrink the file, so a busy daemon's WAL kept its high-water mark. The WAL is
        the file's, so this bounds every store's writes. False when a reader held it back."""
        busy, _, _ = self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if busy:
            logger.debug("[CognitiveStream] WAL checkpoint blocked by a reader; next prune retries")
        return not busy

    def _prune_in_tx(self, conn: sqlite3.Connection, target: int) -> PruneResult:
        before = self._count(conn)
        excess = before - target
        dropped_na = dropped_a = 0
        if excess > 0:
            dropped_na = conn.execute(
                f"DELETE FROM thoughts WHERE seq IN (SELECT seq FROM thoughts WHERE NOT ({_ACTIONABLE_SQL}) "
                "ORDER BY seq LIMIT ?)",
                (excess,),
            ).rowcount
            excess -= dropped_na
        if excess > 0:  # hard cap: only now do unprocessed actionable thoughts go
            dropped_a = conn.execute(
                f"DELETE FROM thoughts WHERE seq IN (SELECT seq FROM thoughts WHERE {_ACTIONABLE_SQL} "
                "ORDER BY seq LIMIT ?)",
                (excess,),
            ).rowcount
        return PruneResult(before, self._count(conn), dropped_na, dropped_a)

    @staticmethod
    def _log_prune(r: PruneResult) -> None:
        logger.info("[CognitiveStream] prune before={} after={} dropped={}", r.before, r.after, r.dropped)
        if r.dropped_actionable:
            logger.warning("[CognitiveStream] hard cap dropped {} unacked actionable thoughts", r.dropped_actionable)

    # -- reading ----------------------------------------------------------------

    def actionable(self, limit: int = 10) -> ActionableFeed:
        """SC-B1: unprocessed convertEligible=true thoughts only, oldest first."""
        n = _check_limit(limit)
        rows = self._conn.execute(
            f"SELECT * FROM thoughts WHERE {_ACTIONABLE_SQL} ORDER BY seq LIMIT ?", (n,)
        ).fetchall()
        queue = self._count(self._conn, "processed = 0")
        eligible = self._count(self._conn, _ACTIONABLE_SQL)
        thoughts = [self._row_to_thought(r) for r in rows]
        feed = ActionableFeed(thoughts=thoughts, queue_size=queue, filtered_out=queue - eligible)
        opt_in, sizes = self._actionable_logs
        opt_in.log("[CognitiveStream] /actionable: returned={} opt_in_only=true", feed.count)
        sizes.log(
            "[CognitiveStream] /actionable: returned={} queue_size={} filtered_out={}",
            feed.count, feed.queue_size, feed.filtered_out,
        )
        return feed

    def recent(self, limit: int = 20, processed: bool | None = None) -> list[StoredThought]:
        """Newest first; processed=None means both."""
        n = _check_limit(limit)
        if processed is None:
            rows = self._read("SELECT * FROM thoughts ORDER BY seq DESC LIMIT ?", (n,))
        else:
            rows = self._read(
                "SELECT * FROM thoughts WHERE processed = ? ORDER BY seq DESC LIMIT ?", (1 if processed else 0, n)
            )
        return [self._row_to_thought(r) for r in rows]

    def get(self, thought_id: str) -> StoredThought | None:
        rows = self._read("SELECT * FROM thoughts WHERE id = ?", (thought_id,))
        return self._row_to_thought(rows[0]) if rows else None

    def count(self, processed: bool | None = None) -> int:
        if processed is None:
            return self._count(self._conn)
        return self._count(self._conn, "processed = 1" if processed else "processed = 0")

    def close(self) -> None:
        self._db.release()
