"""PostgreSQL stores: the same protocols as the SQLite ones, for several daemons sharing one
world through one server database (design: ARCHITECTURE.md, Scale). SQLite stays the embedded
default. So far the task store (agency.pg.task_store) on a migrated PgDatabase
(agency.pg.database); goals, stream and checkpoints follow.

A database client, so it imports psycopg; it sits above the rooms whose stores it implements.
See agency/layers.py.
"""
