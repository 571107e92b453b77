"""Cognitive stream (docs/contracts.md STREAM-1..7): durable thoughts, the opt-in actionable feed, ack.

Thoughts live in the agency database (table `thoughts`: agency/db.py migration 2, agency/pg
migration 3), so unprocessed thoughts survive a restart. On PostgreSQL several daemons share
the table and each sees only its own thoughts (daemon_id): two daemons' planning never
converts one thought twice. Rules enforced here, whatever the publisher:

- STREAM-3: every thought is stored with processed=false; only ack() sets processed=true,
  stamping processedBy and processedAt.
- KEEPALIVE-8: a thought published with convertEligible=true but without metadata.extractedGoal
  and metadata.grounding.pass=true is REFUSED AS ACTIONABLE, not rejected: it is stored
  with convertEligible forced to false and metadata.convertEligibleRefused saying why. The
  thought stays visible in /recent (it is still cognition), but can never reach planning.
- STREAM-1: actionable() returns only unprocessed convertEligible=true thoughts, oldest
  first, so a backlog drains in order and nothing starves behind newer thoughts.
- STREAM-4: a hard cap on stored thoughts. Going over it prunes, in one transaction with the
  insert, down to a low-water mark: oldest non-actionable thoughts first (processed ones
  and percepts), actionable ones only if non-actionable ones are not enough.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from loguru import logger

from agency.clock import Clock, system_clock_ms
from agency.db import StoreSource, database_of, json_value
from agency.log_rate import LogOnChange, LogRate
from agency.thoughts import Thought

DEFAULT_MAX_THOUGHTS = 5_000
WAL_SIZE_LIMIT = 1 << 20  # bytes
LOW_WATER_FRACTION = 0.9  # prune to 90% of the cap, so a flood prunes once per ~10% of cap
MAX_PAGE = 1_000  # largest page one read returns, whatever the caller asks
DEFAULT_PROCESSED_BY = "planning"


@dataclass(frozen=True)
class _Statements:
    """The stream's SQL in one dialect. Every call passes one dict of named parameters, so
    PostgreSQL's statements can add this daemon's id (`daemon`) where SQLite's have nothing."""

    get: str
    insert: str
    processed_of: str
    ack: str
    count: str
    count_processed: str
    count_actionable: str
    actionable: str
    recent: str
    recent_processed: str
    prune_non_actionable: str  # the oldest `limit` rows
    prune_actionable: str


_ACTIONABLE_SQLITE = "processed = 0 AND convert_eligible = 1"  # as idx_thoughts_actionable says it
_ACTIONABLE_PG = "NOT processed AND convert_eligible"
_MINE = "daemon_id = %(daemon)s"
_SQL = {
    "sqlite": _Statements(
        get="SELECT * FROM thoughts WHERE id = :id",
        insert=(
            "INSERT INTO thoughts (id, ts, processed, convert_eligible, data) VALUES (:id, :ts, 0, :eligible, :data)"
        ),
        processed_of="SELECT processed FROM thoughts WHERE id = :id",
        ack="UPDATE thoughts SET processed = 1, processed_by = :by, processed_at = :at WHERE id = :id",
        count="SELECT COUNT(*) AS n FROM thoughts",
        count_processed="SELECT COUNT(*) AS n FROM thoughts WHERE processed = :processed",
        count_actionable=f"SELECT COUNT(*) AS n FROM thoughts WHERE {_ACTIONABLE_SQLITE}",
        actionable=f"SELECT * FROM thoughts WHERE {_ACTIONABLE_SQLITE} ORDER BY seq LIMIT :limit",
        recent="SELECT * FROM thoughts ORDER BY seq DESC LIMIT :limit",
        recent_processed="SELECT * FROM thoughts WHERE processed = :processed ORDER BY seq DESC LIMIT :limit",
        prune_non_actionable=(
            "DELETE FROM thoughts WHERE seq IN (SELECT seq FROM thoughts "
            f"WHERE NOT ({_ACTIONABLE_SQLITE}) ORDER BY seq LIMIT :limit)"
        ),
        prune_actionable=(
            "DELETE FROM thoughts WHERE seq IN (SELECT seq FROM thoughts "
            f"WHERE {_ACTIONABLE_SQLITE} ORDER BY seq LIMIT :limit)"
        ),
    ),
    "postgresql": _Statements(
        get=f"SELECT * FROM thoughts WHERE {_MINE} AND id = %(id)s",
        insert=(
            "INSERT INTO thoughts (daemon_id, id, ts, convert_eligible, data) "
            "VALUES (%(daemon)s, %(id)s, %(ts)s, %(eligible)s, %(data)s::jsonb)"
        ),
        processed_of=f"SELECT processed FROM thoughts WHERE {_MINE} AND id = %(id)s",
        ack=(
            "UPDATE thoughts SET processed = true, processed_by = %(by)s, processed_at = %(at)s "
            f"WHERE {_MINE} AND id = %(id)s"
        ),
        count=f"SELECT COUNT(*) AS n FROM thoughts WHERE {_MINE}",
        count_processed=f"SELECT COUNT(*) AS n FROM thoughts WHERE {_MINE} AND processed = %(processed)s",
        count_actionable=f"SELECT COUNT(*) AS n FROM thoughts WHERE {_MINE} AND {_ACTIONABLE_PG}",
        actionable=f"SELECT * FROM thoughts WHERE {_MINE} AND {_ACTIONABLE_PG} ORDER BY seq LIMIT %(limit)s",
        recent=f"SELECT * FROM thoughts WHERE {_MINE} ORDER BY seq DESC LIMIT %(limit)s",
        recent_processed=(
            f"SELECT * FROM thoughts WHERE {_MINE} AND processed = %(processed)s ORDER BY seq DESC LIMIT %(limit)s"
        ),
        prune_non_actionable=(
            "DELETE FROM thoughts WHERE seq IN (SELECT seq FROM thoughts "
            f"WHERE {_MINE} AND NOT ({_ACTIONABLE_PG}) ORDER BY seq LIMIT %(limit)s)"
        ),
        prune_actionable=(
            "DELETE FROM thoughts WHERE seq IN (SELECT seq FROM thoughts "
            f"WHERE {_MINE} AND {_ACTIONABLE_PG} ORDER BY seq LIMIT %(limit)s)"
        ),
    ),
}


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
    """Why a convertEligible=true thought may not be actionable (KEEPALIVE-8), or None if it may."""
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
    """On SQLite or PostgreSQL, whichever database it is given. daemon_id names whose thoughts
    these are on PostgreSQL (SQLite's file has one daemon's thoughts, it has no such column)."""

    def __init__(
        self,
        path: StoreSource,
        *,
        clock: Clock = system_clock_ms,
        max_thoughts: int = DEFAULT_MAX_THOUGHTS,
        daemon_id: str = "",
    ) -> None:
        if max_thoughts < 1:
            raise ValueError("max_thoughts must be at least 1")
        self._db = database_of(path)  # a path: a connection of its own; a database: the shared one
        self._conn = self._db.conn
        self._sql = _SQL[self._db.dialect]
        self.daemon_id = daemon_id
        if self._db.dialect == "sqlite":
            # when SQLite's own checkpoint restarts the WAL, it cuts the file back to this size
            self._conn.execute(f"PRAGMA journal_size_limit = {WAL_SIZE_LIMIT}")
        self._clock = clock
        self._cap = max_thoughts
        self._low_water = max(1, int(max_thoughts * LOW_WATER_FRACTION))
        # logged on every publish and every planning poll: rate-limited so INFO stays readable
        self._published_log = LogRate("[Cognition] thought_published processed=false", clock=lambda: clock() / 1000)
        self._actionable_logs = (LogOnChange(), LogOnChange())

    @property
    def max_thoughts(self) -> int:
        return self._cap

    # -- plumbing ---------------------------------------------------------------

    def _tx(self) -> AbstractContextManager[Any]:
        return self._db.tx()

    def _args(self, **params: Any) -> dict[str, Any]:
        return {"daemon": self.daemon_id, **params}

    def _read(self, sql: str, **params: Any) -> list[Any]:
        rows: list[Any] = self._conn.execute(sql, self._args(**params)).fetchall()
        return rows

    @staticmethod
    def _row_to_thought(row: Any) -> StoredThought:
        # Columns own the processing state; the JSON blob is written once at publish.
        t = StoredThought.model_validate(json_value(row["data"]))
        return t.model_copy(
            update={
                "processed": bool(row["processed"]),
                "processedBy": row["processed_by"],
                "processedAt": row["processed_at"],
            }
        )

    def _count(self, conn: Any, sql: str, **params: Any) -> int:
        return int(conn.execute(sql, self._args(**params)).fetchone()["n"])

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
            existing = conn.execute(self._sql.get, self._args(id=t.id)).fetchone()
            if existing is not None:
                logger.debug("[CognitiveStream] publish of existing id {} ignored", t.id)
                return self._row_to_thought(existing)
            conn.execute(
                self._sql.insert,
                self._args(id=t.id, ts=t.timestamp, eligible=t.convertEligible is True, data=t.model_dump_json()),
            )
            if self._count(conn, self._sql.count) > self._cap:
                pruned = self._prune_in_tx(conn, self._low_water)
        self._published_log.log("[Cognition] thought_published processed=false")
        if pruned is not None:
            self._log_prune(pruned)
        return t

    def ack(self, thought_ids: Iterable[str], processed_by: str = DEFAULT_PROCESSED_BY) -> AckResult:
        """Mark thoughts processed (AUTONOMY-4: planning owns this). Idempotent: re-acking leaves
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
                row = conn.execute(self._sql.processed_of, self._args(id=tid)).fetchone()
                if row is None:
                    unknown.append(tid)
                elif row["processed"]:
                    already.append(tid)
                else:
                    conn.execute(self._sql.ack, self._args(id=tid, by=processed_by, at=now))
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
        the file's, so this bounds every store's writes. False when a reader held it back.
        A PostgreSQL server bounds its own WAL: nothing to do there."""
        if self._db.dialect != "sqlite":
            return True
        busy, _, _ = self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if busy:
            logger.debug("[CognitiveStream] WAL checkpoint blocked by a reader; next prune retries")
        return not busy

    def _prune_in_tx(self, conn: Any, target: int) -> PruneResult:
        before = self._count(conn, self._sql.count)
        excess = before - target
        dropped_na = dropped_a = 0
        if excess > 0:
            dropped_na = conn.execute(self._sql.prune_non_actionable, self._args(limit=excess)).rowcount
            excess -= dropped_na
        if excess > 0:  # hard cap: only now do unprocessed actionable thoughts go
            dropped_a = conn.execute(self._sql.prune_actionable, self._args(limit=excess)).rowcount
        return PruneResult(before, self._count(conn, self._sql.count), dropped_na, dropped_a)

    @staticmethod
    def _log_prune(r: PruneResult) -> None:
        logger.info("[CognitiveStream] prune before={} after={} dropped={}", r.before, r.after, r.dropped)
        if r.dropped_actionable:
            logger.warning("[CognitiveStream] hard cap dropped {} unacked actionable thoughts", r.dropped_actionable)

    # -- reading ----------------------------------------------------------------

    def actionable(self, limit: int = 10) -> ActionableFeed:
        """STREAM-1: unprocessed convertEligible=true thoughts only, oldest first."""
        n = _check_limit(limit)
        rows = self._read(self._sql.actionable, limit=n)
        queue = self._count(self._conn, self._sql.count_processed, processed=False)
        eligible = self._count(self._conn, self._sql.count_actionable)
        thoughts = [self._row_to_thought(r) for r in rows]
        feed = ActionableFeed(thoughts=thoughts, queue_size=queue, filtered_out=queue - eligible)
        opt_in, sizes = self._actionable_logs
        opt_in.log("[CognitiveStream] /actionable: returned={} opt_in_only=true", feed.count)
        sizes.log(
            "[CognitiveStream] /actionable: returned={} queue_size={} filtered_out={}",
            feed.count,
            feed.queue_size,
            feed.filtered_out,
            key=feed.count,  # a growing queue of unactionable thoughts is no news each poll
        )
        return feed

    def recent(self, limit: int = 20, processed: bool | None = None) -> list[StoredThought]:
        """Newest first; processed=None means both."""
        n = _check_limit(limit)
        if processed is None:
            rows = self._read(self._sql.recent, limit=n)
        else:
            rows = self._read(self._sql.recent_processed, processed=processed, limit=n)
        return [self._row_to_thought(r) for r in rows]

    def get(self, thought_id: str) -> StoredThought | None:
        rows = self._read(self._sql.get, id=thought_id)
        return self._row_to_thought(rows[0]) if rows else None

    def count(self, processed: bool | None = None) -> int:
        if processed is None:
            return self._count(self._conn, self._sql.count)
        return self._count(self._conn, self._sql.count_processed, processed=processed)

    def close(self) -> None:
        self._db.release()
