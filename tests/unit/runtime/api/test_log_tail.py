"""The dashboard's log tail: lines after a seq, the newest N, and a page that followed an
earlier daemon (a seq past this one's last) gets this daemon's lines from the start."""

from __future__ import annotations

from loguru import logger

from bot.runtime.log_tail import LogTail


def test_lines_after_a_seq_and_a_page_from_an_earlier_daemon_starts_over():
    tail = LogTail(keep=3)
    tail.attach("INFO")
    try:
        for i in range(4):
            logger.info("line {}", i)
        logger.debug("not kept below the level")
    finally:
        tail.detach()
    kept = tail.after(0)
    assert [line["message"] for line in kept] == ["line 1", "line 2", "line 3"]  # the oldest fell out
    assert [line["message"] for line in tail.after(kept[0]["seq"], limit=1)] == ["line 3"]
    assert tail.after(kept[-1]["seq"]) == []
    assert [line["message"] for line in tail.after(9999)] == ["line 1", "line 2", "line 3"]
