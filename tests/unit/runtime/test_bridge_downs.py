"""The live bot's BridgeWatch (bot/runtime/bridge_downs.py) over a fake bridge: a run's mark
and its hold tell a bridge that went down (whether the hold comes before the rebuild or
after) from one that went on, with the reason the bridge gave before a rebuild cleared it;
in a fleet sharing the bridge, only the bots that had actions running on node then are
blamed."""

from __future__ import annotations

import json
import signal

from bot.runtime.body import ConnectionSettings, MineflayerBody
from bot.runtime.bridge import node_exit_reason
from bot.runtime.bridge_downs import BodyDowns, BridgeDowns, bridge_downs
from tests.unit.execution.test_poison_tasks import FakeBridge

WEDGED = "wedged: no heartbeat for 6 s"


def _busy(bridge: FakeBridge) -> BodyDowns:
    """The view of a body that has an action running on node all along."""
    return BridgeDowns(bridge).of_body(lambda: ["collect #1 of bot"])


def test_a_bridge_that_went_on_is_no_bridge_down():
    downs = _busy(FakeBridge())
    mark = downs.mark()
    assert downs.down_since(mark) is None


def test_a_hold_before_the_rebuild_reads_the_bridges_reason():
    bridge = FakeBridge()
    downs = _busy(bridge)
    mark = downs.mark()
    bridge.die(WEDGED)
    assert downs.down_since(mark) == WEDGED


def test_a_hold_after_the_rebuild_still_counts_with_the_reason_observed_before_it():
    bridge = FakeBridge()
    downs = _busy(bridge)
    mark = downs.mark()
    bridge.die(WEDGED)
    downs.downs.observe()  # the daemon's body job, before maintain() rebuilds
    bridge.rebuild()
    assert downs.down_since(mark) == WEDGED
    assert downs.down_since(downs.mark()) is None  # a run started on the new node


def test_a_rebuild_nobody_observed_is_blamed_on_nobody():
    bridge = FakeBridge()
    downs = _busy(bridge)
    mark = downs.mark()
    bridge.die(WEDGED)
    bridge.rebuild()  # who was busy is unknown: a guess never fails a task
    assert downs.down_since(mark) is None


def test_a_run_started_on_a_dead_bridge_is_not_blamed_for_it():
    bridge = FakeBridge()
    bridge.die("node process exited (code -9)")
    downs = _busy(bridge)
    mark = downs.mark()
    bridge.rebuild()
    assert downs.down_since(mark) is None
    bridge.die(WEDGED)
    assert downs.down_since(mark) == WEDGED


def test_a_node_killed_from_outside_is_no_down_of_the_task_but_a_crash_is():
    bridge = FakeBridge()
    downs = _busy(bridge)
    mark = downs.mark()
    bridge.die(node_exit_reason(-signal.SIGKILL))  # an operator's kill -9, the chaos soak's
    downs.downs.observe()
    bridge.rebuild()
    assert downs.down_since(mark) is None
    bridge.die(node_exit_reason(-signal.SIGABRT))  # a runaway at its heap limit
    assert downs.down_since(mark) == "node process exited (code -6)"


def test_exit_reasons_tell_an_outside_signal_from_an_end_of_its_own():
    assert node_exit_reason(-signal.SIGKILL) == "node process killed from outside (SIGKILL)"
    assert node_exit_reason(-signal.SIGTERM) == "node process killed from outside (SIGTERM)"
    assert node_exit_reason(1) == "node process exited (code 1)"
    assert node_exit_reason(None) == "node process exited (code None)"


def test_a_fleets_bots_share_one_record_of_their_bridge():
    bridge = FakeBridge()
    assert bridge_downs(bridge) is bridge_downs(bridge)
    assert bridge_downs(bridge) is not bridge_downs(FakeBridge())


class _RebuildingBridge(FakeBridge):
    """What MineflayerBody.maintain() and start_action() call on the bridge."""

    def rebuild_if_dead(self) -> None:
        if not self.alive:
            self.rebuild()

    def call(self, fn: str, *args: object, **_: object) -> str:
        assert fn == "startAction" and self.alive
        return json.dumps({"id": f"{args[0]}-{args[1]}", "kind": args[1], "state": "running", "startedAt": 0})


def _fleet() -> tuple[_RebuildingBridge, dict[str, MineflayerBody], dict[str, BodyDowns]]:
    """Two bots on one bridge, each with its executor's view (as bot.runtime.wiring makes it)."""
    bridge = _RebuildingBridge()
    bodies = {name: MineflayerBody(bridge, ConnectionSettings(username=name)) for name in "AB"}  # type: ignore[arg-type]  # a fake bridge
    for name, body in bodies.items():
        body.bot_id, body.connected, body._generation = name, True, bridge.generation
    return bridge, bodies, {name: bridge_downs(bridge).of_body(body.actions_running) for name, body in bodies.items()}


def _rejoin(bodies: dict[str, MineflayerBody]) -> None:
    for name, body in bodies.items():
        body.maintain()  # the first rebuilds, the other sees the new generation
        body.bot_id, body.connected, body._generation = name, True, body.bridge.generation


def test_the_bodys_rebuild_keeps_the_reason_for_a_hold_that_comes_after_it():
    bridge, bodies, views = _fleet()
    mark = views["A"].mark()
    bodies["A"].start_action("collect", {})
    bridge.die(WEDGED)
    assert bodies["A"].maintain() is False  # rebuilt; the fresh bot joins after the settle time
    assert bridge.generation == 2 and bridge.alive
    assert views["A"].down_since(mark) == WEDGED


def test_in_a_fleet_only_the_bot_with_actions_running_is_blamed_for_a_wedge():
    bridge, bodies, views = _fleet()
    marks = {name: view.mark() for name, view in views.items()}  # both bots' tasks run from here
    for _ in range(2):  # A's task wedges node twice; B's run is between actions (idle, or only polling)
        bodies["A"].start_action("collect", {})
        bridge.die(WEDGED)
        _rejoin(bodies)
    assert [views[n].down_since(marks[n]) for n in "AB"] == [WEDGED, None]
    assert len(bridge_downs(bridge).ends_since(marks["A"])) == 2
    assert not bodies["A"].actions_running()  # they died with node


def test_a_node_that_died_of_itself_is_blamed_on_every_bot_with_actions_running():
    bridge, bodies, views = _fleet()
    crash = node_exit_reason(-signal.SIGABRT)  # its heap limit: which bot's action grew it is unknown
    mark = views["A"].mark()
    for body in bodies.values():
        body.start_action("collect", {})
    bridge.die(crash)
    _rejoin(bodies)
    assert [views[n].down_since(mark) for n in "AB"] == [crash, crash]
    bodies["B"].start_action("dig", {})  # only B is busy when the next node is killed from outside
    bridge.die(node_exit_reason(-signal.SIGKILL))
    _rejoin(bodies)
    bodies["B"].start_action("dig", {})
    bridge.die(crash)
    _rejoin(bodies)
    assert [views[n].down_since(mark) for n in "AB"] == [crash, crash]
    blamed = [[e.reason for e in bridge_downs(bridge).ends_since(mark) if v.key in e.busy] for v in views.values()]
    assert blamed == [[crash], [crash, crash]]  # the outside kill on nobody
