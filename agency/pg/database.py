"""The agency's PostgreSQL database: one connection per PgDatabase, migrated at open.

The counterpart of agency/db.py's Database, with the same sharing rule: the composition
root opens one and hands it to every store; a store given a URL instead opens one of its
own. The connection is in autocommit mode and every write is an explicit transaction
(`tx()`), so a read never holds a transaction open between two calls; a `tx()` inside
another one is a savepoint of it, as immediate_tx is. What must hold across daemons is
enforced by the server: row locks, unique (partial) indexes and triggers.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import psycopg
from psycopg.rows import dict_row

from agency.db import Dialect, SharedDatabase
from agency.pg.migrations import MIGRATIONS

# Daemons starting together migrate one at a time: the first applies, the others find it done.
_MIGRATION_LOCK = 0x6D63626F74  # "mcbot", a pg_advisory_xact_lock key
_VERSION_TABLE = """
    CREATE TABLE IF NOT EXISTS schema_version (
        version     INTEGER PRIMARY KEY,
        description TEXT NOT NULL,
        applied_at  TIMESTAMPTZ NOT NULL DEFAULT now()
    )"""

Connection = psycopg.Connection[dict[str, Any]]


@contextmanager
def _transaction(conn: Connection) -> Iterator[Connection]:
    with conn.transaction():  # BEGIN ... COMMIT, or a savepoint inside an open transaction
        yield conn


def schema_version(conn: Connection) -> int:
    """The newest applied migration, 0 for an empty database."""
    exists = conn.execute("SELECT to_regclass('schema_version') IS NOT NULL AS e").fetchone()
    if not exists or not exists["e"]:
        return 0
    row = conn.execute("SELECT COALESCE(MAX(version), 0) AS v FROM schema_version").fetchone()
    return int(row["v"]) if row else 0


def migrate(conn: Connection) -> int:
    """Apply pending migrations, each in its own transaction with its schema_version row.
    Returns the new version."""
    if schema_version(conn) >= MIGRATIONS[-1][0]:
        return schema_version(conn)
    for version, description, sql in MIGRATIONS:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            conn.execute(_VERSION_TABLE)
            if version <= schema_version(conn):
                continue  # applied earlier, or by another daemon while we waited for the lock
            conn.execute(sql)
            conn.execute("INSERT INTO schema_version (version, description) VALUES (%s, %s)", (version, description))
    return schema_version(conn)


class PgDatabase(SharedDatabase):
    """One connection to the server database, migrated, shared as agency.db's
    SharedDatabase says (a URL opens a private one)."""

    dialect: Dialect = "postgresql"
    integrity_error = psycopg.IntegrityError  # agency.db's integrity_errors() has it once this module is imported

    def __init__(self, url: str, *, connect_timeout_s: int = 10) -> None:
        self.url = url
        self.conn: Connection = psycopg.connect(
            url, autocommit=True, row_factory=dict_row, connect_timeout=connect_timeout_s
        )
        try:
            migrate(self.conn)
        except BaseException:
            self.conn.close()
            raise

    def tx(self) -> AbstractContextManager[Connection]:
        """A write transaction; nested, a savepoint of the enclosing one. Yields the connection."""
        return _transaction(self.conn)

    @staticmethod
    def refused_by_unique_index(exc: BaseException, index: str, columns: str) -> bool:
        """PostgreSQL names the unique index that refused the write."""
        return isinstance(exc, psycopg.errors.UniqueViolation) and exc.diag.constraint_name == index


# What a PostgreSQL store's constructor takes: a URL (it opens a PgDatabase of its own) or a shared one.
PgSource = str | PgDatabase
