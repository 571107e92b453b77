"""PostgreSQL stores: the same protocols as the SQLite ones, for several daemons sharing one
world through one server database (docs/fleet.md). SQLite stays the embedded
default. Here: the migrated PgDatabase (agency.pg.database) and the task store
(agency.pg.task_store), whose claims need leases and row locks. The smaller stores (stream,
goals, places, checkpoints, drive ticks) live in their rooms and take either database: each
picks its SQL by the database's `dialect`.

A database client, so it imports psycopg; it sits above the rooms whose stores it implements.
See agency/layers.py.
"""
