import random
import socket
import threading

import pytest

from bot.runtime.body import Backoff
from bot.runtime.ping import ServerUnreachable, ping
from bot.runtime.server import free_port
from tests.status_server import status_server


def test_backoff_doubles_from_5s_to_a_60s_cap_with_jitter():
    b = Backoff(5.0, 60.0, rng=random.Random(7))
    delays = [b.next_delay() for _ in range(8)]
    bases = [5, 10, 20, 40, 60, 60, 60, 60]
    for d, base in zip(delays, bases, strict=True):
        assert base <= d <= min(60.0, base * 1.25)
    assert delays[-1] <= 60.0


def test_backoff_never_goes_below_minimum_and_resets():
    b = Backoff(5.0, 60.0, rng=random.Random(1))
    for _ in range(5):
        b.next_delay()
    b.reset()
    assert 5.0 <= b.next_delay() <= 6.25


def test_ping_refused_port_is_server_unreachable_with_address():
    port = free_port()
    with pytest.raises(ServerUnreachable, match=f"127.0.0.1:{port}"):
        ping("127.0.0.1", port, timeout_s=2)


def test_ping_garbage_reply_is_server_unreachable():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    port = srv.getsockname()[1]

    def answer():
        conn, _ = srv.accept()
        conn.recv(1024)
        conn.sendall(b"\x05\x00\x03abc")  # status packet whose body is not JSON
        conn.close()

    t = threading.Thread(target=answer, daemon=True)
    t.start()
    with pytest.raises(ServerUnreachable, match=r"malformed|closed"):
        ping("127.0.0.1", port, timeout_s=2)
    srv.close()


def test_a_slow_status_reply_is_waited_for_longer_than_the_connection():
    """The embedded world, just ready beside a loaded CI's other lanes, answered its first
    ping after more than the 5 s a connection gets, and the daemon exited 3."""
    status = {"version": {"name": "26.1", "protocol": 775}, "players": {"online": 0}, "description": ""}
    with status_server(status, delay_s=0.5) as port:
        assert ping("127.0.0.1", port, timeout_s=0.2).version_name == "26.1"
        with pytest.raises(ServerUnreachable, match="timed out"):
            ping("127.0.0.1", port, timeout_s=0.2, reply_timeout_s=0.2)
