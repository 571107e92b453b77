"""route_table (bot/runtime/api/app.py) lists what the app serves: every route it names
answers at its path and method (whatever the answer, it is not "no route" nor 405), and a
bot's routes are there at both its plain paths and under /api/bots/{name}."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from bot.runtime.api import create_app
from bot.runtime.api.app import route_table
from tests.unit.runtime.api.test_error_shape import _context


def test_every_route_in_the_table_is_served():
    c = TestClient(create_app(_context()), raise_server_exceptions=False)
    table = route_table()
    assert len(table) == len(set(table)) > 30
    for method, path in table:
        concrete = re.sub(r"\{name\}", "alpha", re.sub(r"\{command\}", "pause", re.sub(r"\{\w+_id\}", "x-1", path)))
        r = c.request(method, concrete, json={} if method == "POST" else None)
        assert r.status_code != 405, (method, path, r.text)
        assert not (r.status_code == 404 and r.json()["detail"].startswith("no route")), (method, path)


def test_a_bot_s_routes_are_written_once_and_served_at_both_paths():
    table = set(route_table())
    plain = {
        (m, p.removeprefix("/api/bot").removeprefix("/api"))
        for m, p in table
        if p.startswith(("/api/actions", "/api/bot/"))
    }
    named = {(m, p.removeprefix("/api/bots/{name}")) for m, p in table if p.startswith("/api/bots/{name}/")}
    assert (
        plain
        == named
        == {
            ("POST", "/actions"),
            ("GET", "/actions"),
            ("GET", "/actions/{action_id}"),
            ("POST", "/actions/{action_id}/cancel"),
            ("GET", "/blocks"),
            ("GET", "/chat"),
            ("POST", "/chat"),
            ("GET", "/plan"),
            ("GET", "/snapshot"),
        }
    )
