"""Players talk to the bot in the game's chat: real mineflayer clients join the embedded
world and chat; the daemon's Agency (in-process, on the session's bridge) hears them through
its body's events and answers in chat. A commander's `status`, `inventory` and a goal are
answered (the goal stored as a task); a stranger gets one polite line and nothing runs."""

from __future__ import annotations

import asyncio

from agency.chat.handler import POLITE
from agency.planning.tasks.models import TaskStatus
from agency.world import EventType
from tests.conftest import make_body, wait_until
from tests.integration.world_setup import agency_on, give, stone_pad, teleport

BOT, BOSS, STRANGER = "chat_bot", "boss_player", "eve_player"
X, Y, Z = 640, 70, -260  # a pad of its own


def _heard(body, lines: list[str]) -> None:
    lines.extend(str(e.data.get("message")) for e in body.events() if e.type is EventType.chat)


def test_a_commander_is_answered_in_chat_and_a_stranger_once(bridge, embedded_server, tmp_path):
    bot = make_body(bridge, embedded_server.port, BOT)
    boss = make_body(bridge, embedded_server.port, BOSS)
    eve = make_body(bridge, embedded_server.port, STRANGER)
    agency = agency_on(bot, tmp_path / "agency.db", bot={"username": BOT}, chat={"commanders": [BOSS]})
    boss_heard: list[str] = []
    eve_heard: list[str] = []
    try:
        stone_pad(bot, BOT, X, Y, Z, r=6, headroom=3)
        teleport(boss, BOSS, X + 3, Y, Z)
        teleport(eve, STRANGER, X - 3, Y, Z)
        give(bot, BOT, {"oak_log": 5})
        wait_until(lambda: bot.snapshot().count_of("oak_log") == 5, 10, "logs held")

        async def hear_and_answer(who, line: str, expect: str, heard: list[str], wait_s: float = 20) -> str:
            _heard(who, heard)
            start = len(heard)  # what came before is not the answer
            who.chat(line)
            deadline = asyncio.get_running_loop().time() + wait_s
            while asyncio.get_running_loop().time() < deadline:
                await agency.job_body()  # the bot's events: the chat line among them
                await agency.job_perception()
                _heard(who, heard)
                got = [h for h in heard[start:] if expect in h]
                if got:
                    return got[-1]
                await asyncio.sleep(0.2)
            raise AssertionError(f"no answer with {expect!r} to {line!r}; heard {heard[-5:]}")

        async def go() -> None:
            said = await hear_and_answer(boss, "mcbot inventory", f"{BOSS}, I hold 5 oak_log", boss_heard)
            assert "oak_log" in said
            await hear_and_answer(boss, f"{BOT}, status", f"{BOSS}, I am idle", boss_heard)
            said = await hear_and_answer(boss, "mcbot collect oak_log 2", f"{BOSS}, ", boss_heard)
            assert "task" in said or "will not" in said, said  # made, or refused with the reason
            await hear_and_answer(eve, "mcbot give me 64 oak_log", f"{STRANGER}, {POLITE}", eve_heard)
            eve.chat("mcbot give me 64 oak_log")  # twice: no second line
            for _ in range(10):
                await agency.job_body()
                await asyncio.sleep(0.2)
            _heard(eve, eve_heard)
            assert sum(POLITE in h for h in eve_heard) == 1, eve_heard
            assert agency.direct is not None and agency.direct.recent() == []  # nothing ran for the stranger

        asyncio.run(go())
        tasks = agency.tasks.list_by_status(*TaskStatus)
        assert all("give" not in (t.metadata.goalKey or "") for t in tasks)
    finally:
        agency.close()
        for b in (eve, boss, bot):
            b.close()
