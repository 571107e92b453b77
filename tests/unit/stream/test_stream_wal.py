"""The database's WAL stays bounded: the scheduled prune checkpoints it back to 0 bytes, so
many writes between two prunes never leave a WAL at its high-water mark."""

from __future__ import annotations

from pathlib import Path

from agency.stream.cognitive_stream import WAL_SIZE_LIMIT, CognitiveStream

AUTOCHECKPOINT_BYTES = 1000 * 4096  # SQLite's default: a passive checkpoint every 1000 pages


def _wal(db: Path) -> int:
    wal = db.with_name(db.name + "-wal")
    return wal.stat().st_size if wal.exists() else 0


def test_the_scheduled_prune_checkpoints_the_wal_back_to_nothing(tmp_path):
    db = tmp_path / "agency.db"
    clock = iter(range(10**9))
    stream = CognitiveStream(db, clock=lambda: next(clock), max_thoughts=100)
    reader = CognitiveStream(db, clock=lambda: 0)  # a second connection on the file, as in the daemon
    for round_ in range(3):
        for i in range(400):
            stream.publish({"content": f"{'x' * 2000} {round_}-{i}", "timestamp": i})
        reader.recent(5)
        assert 0 < _wal(db) <= AUTOCHECKPOINT_BYTES + WAL_SIZE_LIMIT  # SQLite's own checkpoints never empty it
        stream.prune()  # the daemon's stream_prune job
        assert _wal(db) == 0
    assert stream.count() <= 100  # the thought cap held throughout
