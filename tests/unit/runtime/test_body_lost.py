"""MineflayerBody speaks agency's BodyLost, never the bridge's own errors: a dead bridge,
a call to a bot whose connection ended, or an action that failed because its bot left the
server is a lost body (and the body reads disconnected at once); any other JS error stays a
plain BodyError, which a task may fail on."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agency.world import ActionState, BodyError, BodyLost
from bot.runtime.body import ConnectionSettings, MineflayerBody
from bot.runtime.bridge import BridgeDead, BridgeError
from bot.runtime.ping import ServerUnreachable


class _Bridge:
    """Answers each helper from a table; an exception in the table is raised."""

    def __init__(self, answers: dict[str, Any]) -> None:
        self.answers = answers
        self.alive = True
        self.generation = 1

    def call(self, fn: str, *args: Any, **_: Any) -> Any:
        if fn == "many":  # bridge.js `many`: the helper's answer for every key
            helper, keys = args[0], json.loads(args[1])
            return json.dumps({k: {"value": json.loads(self.call(helper, *a))} for k, a in keys.items()})
        out = self.answers[fn]
        if isinstance(out, Exception):
            raise out
        return out if isinstance(out, str) else json.dumps(out)

    def call_json(self, fn: str, *args: Any, **kw: Any) -> Any:
        return json.loads(self.call(fn, *args, **kw))


def _body(answers: dict[str, Any]) -> MineflayerBody:
    body = MineflayerBody(_Bridge(answers), ConnectionSettings())  # type: ignore[arg-type]  # a fake bridge
    body.bot_id, body.connected = "1", True
    return body


def _action(state: str, error: str | None = None) -> dict[str, Any]:
    return {"id": "7", "kind": "collect", "state": state, "startedAt": 1, "error": error}


def test_a_dead_bridge_is_a_lost_body():
    body = _body({"snapshot": BridgeDead("node process exited (code -9)")})
    with pytest.raises(BodyLost, match="code -9"):
        body.snapshot()
    assert body.connected is False


def test_a_dead_bridge_reads_disconnected_before_any_call():
    body = _body({})
    body.bridge.alive = False
    assert body.connected is False


def test_a_call_to_a_bot_that_left_the_server_is_a_lost_body():
    body = _body({"startAction": BridgeError("startAction: bot 1 has disconnected (kicked)")})
    with pytest.raises(BodyLost):
        body.start_action("collect", {})
    assert body.connected is False


def test_any_other_js_error_is_a_plain_body_error():
    body = _body({"startAction": BridgeError("startAction: unknown action kind fly")})
    with pytest.raises(BodyError) as e:
        body.start_action("fly", {})
    assert not isinstance(e.value, BodyLost) and body.connected is True


def test_an_action_that_failed_with_its_bot_gone_is_a_lost_body():
    body = _body({"pollAction": _action("failed", "Path was stopped"), "status": {"id": "1", "state": "ended"}})
    with pytest.raises(BodyLost, match="Path was stopped"):
        body.poll_action("7")
    assert body.connected is False


def test_an_action_that_failed_with_its_bot_still_there_is_its_own_failure():
    body = _body({"pollAction": _action("failed", "no path"), "status": {"id": "1", "state": "ready"}})
    assert body.poll_action("7").state is ActionState.failed
    assert body.connected is True


class _JoiningBridge:
    """createBot makes bot N; bot 1 never spawns (a stalled login), later bots are ready."""

    def __init__(self) -> None:
        self.alive, self.created, self.quit = True, 0, []
        self.generation = 1

    def call(self, fn: str, *args: Any, **_: Any) -> Any:
        if fn == "createBot":
            self.created += 1
            return str(self.created)
        if fn == "quit":
            self.quit.append(args[0])
            return "null"
        raise AssertionError(fn)

    def call_json(self, fn: str, *args: Any, **_: Any) -> Any:
        assert fn == "status"
        return {"state": "connecting" if args[0] == "1" else "ready", "client": "configuration", "error": None}


def test_a_stalled_login_is_retried_once_with_a_new_connection(monkeypatch):
    now = [0.0]
    bridge = _JoiningBridge()
    body = MineflayerBody(
        bridge,
        ConnectionSettings(),
        clock=lambda: now[0],  # type: ignore[arg-type]  # a fake bridge
        sleep=lambda s: now.__setitem__(0, now[0] + s),
    )
    monkeypatch.setattr(body, "resolve_version", lambda: "1.21.4")
    body.connect()
    assert body.connected and body.bot_id == "2" and bridge.quit == ["1"]
    assert 5.0 <= now[0] < 6.0  # retried at the stall mark, not after the 30 s connect timeout


def test_a_bot_that_spawned_but_never_got_ready_fails_the_join_at_once(monkeypatch):
    now = [0.0]

    class _NoChunks(_JoiningBridge):
        def call_json(self, fn: str, *args: Any, **_: Any) -> Any:
            return {"state": "spawned", "client": "play", "error": "Timeout waiting for 5 chunks to load after 10000ms"}

    body = MineflayerBody(
        _NoChunks(),
        ConnectionSettings(),
        clock=lambda: now[0],  # type: ignore[arg-type]  # a fake bridge
        sleep=lambda s: now.__setitem__(0, now[0] + s),
    )
    monkeypatch.setattr(body, "resolve_version", lambda: "1.21.4")
    with pytest.raises(ServerUnreachable, match="never got ready: Timeout waiting for 5 chunks"):
        body.connect()
    assert now[0] < 1.0  # not after the whole 30 s connect timeout


def test_after_the_bridge_died_the_bot_rejoins_once_the_server_had_time_to_drop_the_old_player():
    now = [0.0]

    class _Dead(_JoiningBridge):
        dead_reason = "node process exited (code -9)"

        def __init__(self) -> None:
            super().__init__()
            self.alive, self.rebuilt = False, 0

        def rebuild_if_dead(self) -> None:
            self.alive, self.rebuilt, self.generation = True, self.rebuilt + 1, self.generation + 1

    bridge = _Dead()
    body = MineflayerBody(
        bridge,
        ConnectionSettings(),
        clock=lambda: now[0],  # type: ignore[arg-type]  # a fake bridge
        sleep=lambda s: now.__setitem__(0, now[0] + s),
    )
    joins = []
    body.connect = lambda: joins.append(now[0])  # type: ignore[method-assign]  # the test's stand-in
    assert body.maintain() is False and bridge.rebuilt == 1 and joins == []
    now[0] = 1.9
    assert body.maintain() is False and joins == []
    now[0] = 2.0
    assert body.maintain() is True and joins == [2.0]


def test_bots_sharing_a_bridge_rebuild_it_once_and_each_rejoins():
    """A fleet's bodies share one bridge: the first to see it dead rebuilds it; the others
    find their bot gone with the old node process (a newer generation) and rejoin too."""
    now = [0.0]

    class _Shared(_JoiningBridge):
        dead_reason = "node process exited (code -9)"

        def __init__(self) -> None:
            super().__init__()
            self.rebuilt = 0

        def rebuild_if_dead(self) -> None:
            if not self.alive:
                self.alive, self.rebuilt, self.generation = True, self.rebuilt + 1, self.generation + 1

    bridge = _Shared()
    bodies = [
        MineflayerBody(bridge, ConnectionSettings(username=n), clock=lambda: now[0])  # type: ignore[arg-type]  # a fake bridge
        for n in ("alice", "bob")
    ]
    for body in bodies:
        body.bot_id, body._generation, body.connected = "1", bridge.generation, True
    bridge.alive = False
    assert [b.maintain() for b in bodies] == [False, False]
    assert bridge.rebuilt == 1  # once, not once per bot
    assert all(b.bot_id is None and not b.connected for b in bodies)
    assert [[e.data.get("reason") for e in b.events()] for b in bodies] == [
        ["bridge dead: node process exited (code -9)"],
        ["bridge rebuilt for another bot"],
    ]
