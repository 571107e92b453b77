"""The live bot's BridgeWatch (bot/runtime/bridge_downs.py) over a fake bridge: a run's mark
and its hold tell a bridge that went down (whether the hold comes before the rebuild or
after) from one that went on, with the reason the bridge gave before a rebuild cleared it."""

from __future__ import annotations

from bot.runtime.body import ConnectionSettings, MineflayerBody
import signal

from bot.runtime.bridge import node_exit_reason
from bot.runtime.bridge_downs import MISSED, BridgeDowns, bridge_downs
from tests.unit.executor.test_poison_tasks import FakeBridge

WEDGED = "wedged: no heartbeat for 6 s"


def test_a_bridge_that_went_on_is_no_bridge_down():
    downs = BridgeDowns(FakeBridge())
    mark = downs.mark()
    assert downs.down_since(mark) is None


def test_a_hold_before_the_rebuild_reads_the_bridges_reason():
    bridge = FakeBridge()
    downs = BridgeDowns(bridge)
    mark = downs.mark()
    bridge.die(WEDGED)
    assert downs.down_since(mark) == WEDGED


def test_a_hold_after_the_rebuild_still_counts_with_the_reason_observed_before_it():
    bridge = FakeBridge()
    downs = BridgeDowns(bridge)
    mark = downs.mark()
    bridge.die(WEDGED)
    downs.observe()  # the daemon's body job, before maintain() rebuilds
    bridge.rebuild()
    assert downs.down_since(mark) == WEDGED
    assert downs.down_since(downs.mark()) is None  # a run started on the new node


def test_a_rebuild_nobody_observed_still_counts():
    bridge = FakeBridge()
    downs = BridgeDowns(bridge)
    mark = downs.mark()
    bridge.die(WEDGED)
    bridge.rebuild()
    assert downs.down_since(mark) == MISSED


def test_a_run_started_on_a_dead_bridge_is_not_blamed_for_it():
    bridge = FakeBridge()
    bridge.die("node process exited (code -9)")
    downs = BridgeDowns(bridge)
    mark = downs.mark()
    bridge.rebuild()
    assert downs.down_since(mark) is None
    bridge.die(WEDGED)
    assert downs.down_since(mark) == WEDGED


def test_a_node_killed_from_outside_is_no_down_of_the_task_but_a_crash_is():
    bridge = FakeBridge()
    downs = BridgeDowns(bridge)
    mark = downs.mark()
    bridge.die(node_exit_reason(-signal.SIGKILL))  # an operator's kill -9, the chaos soak's
    downs.observe()
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
    """What MineflayerBody.maintain() calls on a dead bridge."""

    def rebuild_if_dead(self) -> None:
        if not self.alive:
            self.rebuild()


def test_the_bodys_rebuild_keeps_the_reason_for_a_hold_that_comes_after_it():
    bridge = _RebuildingBridge()
    body = MineflayerBody(bridge, ConnectionSettings())  # type: ignore[arg-type]
    body.bot_id, body.connected = "1", True
    mark = bridge_downs(bridge).mark()
    bridge.die(WEDGED)
    assert body.maintain() is False  # rebuilt; the fresh bot joins after the settle time
    assert bridge.generation == 2 and bridge.alive
    assert bridge_downs(bridge).down_since(mark) == WEDGED
