"""The bot's side of chat: a line from a player becomes a command or a goal, and an answer.

Only the players the config trusts (`[chat] commanders`) are obeyed; any other player who
addresses the bot gets one polite line, ever, and is logged. A goal goes through the goal
intake, the same grammar, grounding, routing and one-live-task rule as `POST /api/goals`.
Every answer is made of the bot's own words and the names the grammar and the game data
allow (a task id, an item name, a refusal's reason), never the player's text back, goes
through the rate gate (what does not pass is dropped and counted), and when the server
refuses the bot's chat it becomes a log line instead; a command is never lost for it.
Tasks given in chat are reported when they end. A line that is neither a command nor a goal
goes to the model when one is configured (agency.chat.talk: its answer said, a goal in it
through the intake); without one the bot says which commands it understands.

The dashboard talks to the bot the same way (`ask`): its lines come from the loopback user
(DASHBOARD) with a commander's rights, and the answers go back to it rather than into the
game's chat. The lines the bot hears and says are kept (the last MAX_LINES) for the
dashboard to show."""

from __future__ import annotations

import asyncio
import re
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from loguru import logger

from agency.chat.commands import Command, parse, spoken
from agency.chat.gate import ReplyGate, Strangers
from agency.chat.lines import MAX_LINE, addressed, clean, in_one_message
from agency.chat.talk import ChatTalk
from agency.clock import Clock
from agency.errors import InvalidInputError
from agency.execution.direct import DirectActionError, DirectActions
from agency.goals.user_goals import GoalDecision, GoalRequest
from agency.planning.tasks.models import Task
from agency.world import BodyEvent, EventType, WorldSnapshot

HELP = (
    "I understand: status, inventory, stop, come, follow me, give me N item, "
    "and goals like collect oak_log 8, obtain compass, build basic_shelter"
)
POLITE = "Sorry, I only take orders from the players I work with."
NOT_UNDERSTOOD = "I did not understand that. " + HELP
BUSY = "I am still answering the last thing I was asked; one at a time."
FOLLOW_S = 120  # how long `follow me` follows
COME_RANGE = 2
MAX_NOTICED = 500  # chat tasks whose end is still to be reported
DASHBOARD = "(dashboard)"  # the loopback user at the dashboard: no player can have this name
MAX_LINES = 200  # lines heard and said, kept for the dashboard
PROGRESS_EVERY_MS = 30_000  # at most one progress line per chat task this often


def _by(player: str) -> str:
    """Who asked, as a task's origin names them: `chat:Steve`, or `dashboard` (a name of
    other characters, as some servers allow, with them made `_`)."""
    return "dashboard" if player == DASHBOARD else "chat:" + re.sub(r"[^A-Za-z0-9_]", "_", player)[:32]


def said_line(player: str, text: str) -> str:
    """The line said in chat: `Player, text`, one chat message whatever the text holds
    (lines.in_one_message)."""
    return in_one_message(f"{player}, {text}")[:MAX_LINE]


class ChatHandler:
    def __init__(
        self,
        bot_name: str,
        *,
        commanders: Iterable[str],
        say: Callable[[str], Awaitable[bool]],
        submit: Callable[[GoalRequest], Awaitable[GoalDecision]],
        snapshot: Callable[[], Awaitable[WorldSnapshot | None]],
        status: Callable[[], str],
        direct: Callable[[], DirectActions | None],
        clock: Clock,
        gate: ReplyGate | None = None,
        talk: ChatTalk | None = None,
    ) -> None:
        self.bot_name = bot_name
        self.commanders = frozenset(c.lower() for c in commanders)
        self.say, self.submit, self.snapshot, self.status, self.direct = say, submit, snapshot, status, direct
        self.gate = gate or ReplyGate(clock)
        self.talk = talk
        self.strangers = Strangers()
        self.asked_by: dict[str, str] = {}  # task id -> the player who gave it
        self.heard = 0
        self.clock = clock
        self.lines: deque[dict[str, Any]] = deque(maxlen=MAX_LINES)
        self._seq = 0
        self._asking: list[str] | None = None  # the dashboard's answers while `ask` runs
        self._progress_at: dict[str, int] = {}  # chat task id -> when its last progress line was said
        self._talking: asyncio.Future[None] | None = None  # the sentence the model is answering
        self._ask_lock = asyncio.Lock()

    async def on_events(self, events: Iterable[BodyEvent]) -> None:
        for e in events:
            if e.type is EventType.chat:
                await self.hear(str(e.data.get("username") or ""), e.data.get("message"), bool(e.data.get("whisper")))

    async def hear(self, player: str, message: Any, whisper: bool = False) -> None:
        if not player or player.lower() == self.bot_name.lower():
            return  # the bot's own lines come back in chat
        line = clean(message)
        self._record(player, line, said=False)
        text = addressed(line, self.bot_name, whisper=whisper)
        if text is None:
            return
        self.heard += 1
        if player.lower() not in self.commanders:
            first = self.strangers.first_time(player)
            logger.info("[Chat] {} (not a commander) addressed the bot{}", player, "; answered once" if first else "")
            if first:
                await self.reply(player, POLITE)
            return
        await self._obey(player, text)

    async def ask(self, text: str) -> list[str]:
        """A line from the dashboard (the loopback user, a commander): its answers, in order."""
        async with self._ask_lock:
            line = clean(text)
            self._record(DASHBOARD, line, said=False)
            self._asking = []
            try:
                await self._obey(DASHBOARD, addressed(line, self.bot_name) or line)
                await self.settle()  # a sentence's answer comes back in this response too
                return self._asking
            finally:
                self._asking = None

    def lines_after(self, seq: int) -> list[dict[str, Any]]:
        """The lines heard and said after `seq` (0: all those kept), oldest first."""
        return [dict(line) for line in self.lines if line["seq"] > seq]

    def _record(self, player: str, text: str, *, said: bool) -> None:
        self._seq += 1
        self.lines.append({"seq": self._seq, "ts": self.clock(), "player": player, "text": text, "said": said})

    async def _obey(self, player: str, text: str) -> None:
        command = parse(text)
        logger.info("[Chat] {}: {} {}", player, command.kind, command.args or "")
        answer = await self.answer(player, command)
        if answer:
            await self.reply(player, answer)

    async def answer(self, player: str, command: Command) -> str:
        kind, args = command.kind, command.args
        if kind == "help":
            return HELP
        if kind == "bad":
            return str(args["why"])
        if kind == "status":
            return self.status()
        if kind == "inventory":
            return self._inventory(await self.snapshot())
        if kind == "stop":
            return self._stop()
        if kind in ("come", "follow", "give"):
            return self._act(player, kind, args, await self.snapshot() if kind == "come" else None)
        return await self._goal(player, str(args["text"]))

    def _inventory(self, snap: WorldSnapshot | None) -> str:
        if snap is None:
            return "I cannot see my inventory right now."
        held = sorted(snap.held().items(), key=lambda kv: -kv[1])
        return (
            "I hold "
            + (", ".join(f"{n} {name}" for name, n in held[:12]) or "nothing")
            + (f" and {len(held) - 12} more kinds" if len(held) > 12 else "")
        )

    def _stop(self) -> str:
        direct = self.direct()
        busy = direct.body_busy if direct is not None else None
        if direct is None or busy is None:
            return "I am not doing anything you asked me to right now."
        direct.cancel(busy.action_id, "stopped in chat")
        return f"Stopped {busy.tool}."

    def _act(self, player: str, kind: str, args: dict[str, object], snap: WorldSnapshot | None) -> str:
        if player == DASHBOARD:
            return f"{kind} needs a player in the game to go to; the dashboard is not one."
        direct = self.direct()
        if direct is None:
            return "I cannot move right now."
        if kind == "give":
            call = ("give", {"player": player, "item": args["item"], "count": args["count"]})
        elif kind == "follow":
            call = ("follow", {"username": player, "distance": 3, "duration_s": FOLLOW_S})
        else:
            them = next((e for e in (snap.entities if snap else []) if e.name.lower() == player.lower()), None)
            if them is None:
                return "I cannot see you from here."
            p = them.position
            call = ("move_to", {"x": p.x, "y": p.y, "z": p.z, "range": COME_RANGE})
        try:
            action = direct.start(*call)
        except (DirectActionError, InvalidInputError) as e:
            return f"I cannot do that now: {e}"
        what = {"give": f"handing you {args.get('count')} {args.get('item')}", "follow": "following you"}
        return f"OK, {what.get(kind, 'coming')} ({action.action_id})."

    async def _goal(self, player: str, text: str) -> str:
        if self.talk is not None and spoken(text):
            return self._talk_later(player, text)
        try:
            decision = await self.submit(GoalRequest(text=text[:128], bot=self.bot_name, by=_by(player)))
        except InvalidInputError:
            return self._talk_later(player, text) if self.talk is not None else NOT_UNDERSTOOD
        return self._decided(player, decision)

    def _talk_later(self, player: str, text: str) -> str:
        """The model asked in the background (the body job that heard the line goes on: a slow
        model must not hold the bot's events), one sentence at a time; a line the reply gate
        would drop is not sent to the model at all."""
        if self._talking is not None and not self._talking.done():
            return BUSY
        if player != DASHBOARD and not self.gate.allow():
            logger.info("[Chat] {}'s sentence not answered (rate limit; {} dropped so far)", player, self.gate.dropped)
            return ""
        self._talking = asyncio.ensure_future(self._talk(player, text))
        return ""

    async def settle(self) -> None:
        """Wait for the sentence being answered, if any (the dashboard's ask; tests)."""
        if self._talking is not None:
            await asyncio.wait([self._talking])

    async def _talk(self, player: str, text: str) -> None:
        """The model's answer said (its gate token taken already); then what became of a goal
        in it."""
        assert self.talk is not None
        try:
            answer = await self.talk.answer(player, text)
            await self.reply(player, answer.said, gated=False)
            if answer.goal is None:
                return
            goal = answer.goal
            try:
                request = GoalRequest(
                    text=f"{goal.action} {goal.target} {goal.amount}", bot=self.bot_name, by=_by(player)
                )
                decided = self._decided(player, await self.submit(request))
            except InvalidInputError as e:
                decided = f"I will not {goal.action} {goal.target}: {e}"
            await self.reply(player, decided)
        except Exception as e:  # noqa: BLE001 - a failed answer must not be lost silently, nor crash the loop
            logger.warning("[Chat] answering {}'s sentence failed: {}: {}", player, type(e).__name__, e)

    def _decided(self, player: str, decision: GoalDecision) -> str:
        goal = f"{decision.goal.action} {decision.goal.target} {decision.goal.amount}"
        if decision.created and decision.task_id is not None:
            if len(self.asked_by) < MAX_NOTICED:
                self.asked_by[decision.task_id] = player
            return f"OK: {goal} (task {decision.task_id[-8:]})."
        return f"I will not {goal}: {decision.reason or decision.verdict}"

    def on_task_event(self, kind: str, task: Task) -> Awaitable[None] | None:
        """The executor's lifecycle events: a chat task's start and end are said to its player."""
        player = self.asked_by.get(task.id)
        if player is None or kind not in ("claimed", "completed", "failed"):
            return None
        if kind != "claimed":
            del self.asked_by[task.id]
            self._progress_at.pop(task.id, None)
        goal = task.metadata.goalKey or task.type
        reason = (task.metadata.solver or {}).get("failureReason") or task.metadata.blockedReason or ""
        text = {"claimed": f"Starting {goal}.", "completed": f"Done: {goal}."}.get(kind, f"{goal} failed: {reason}")
        return self.reply(player, text)

    def on_step(self, task_id: str, kind: str, index: int, total: int, step: str) -> Awaitable[None] | None:
        """A workflow step's event: a chat task's finished steps are said to its player as its
        progress, at most one line per PROGRESS_EVERY_MS (the last step's line is the end's)."""
        player = self.asked_by.get(task_id)
        if player is None or kind != "step_finished" or total < 2 or index + 1 >= total:
            return None
        now = self.clock()
        if now - self._progress_at.get(task_id, -PROGRESS_EVERY_MS) < PROGRESS_EVERY_MS:
            return None
        self._progress_at[task_id] = now
        if len(self._progress_at) > MAX_NOTICED:
            self._progress_at.pop(next(iter(self._progress_at)))
        return self.reply(player, f"Progress: step {index + 1} of {total} done ({step}).")

    async def reply(self, player: str, text: str, *, gated: bool = True) -> None:
        line = said_line(player, text)
        if player == DASHBOARD:  # back to the dashboard, not into the game's chat
            self._record(self.bot_name, line, said=True)
            if self._asking is not None:
                self._asking.append(text)
            return
        if gated and not self.gate.allow():
            logger.info("[Chat] reply to {} dropped (rate limit; {} dropped so far)", player, self.gate.dropped)
            return
        if not await self.say(line):
            logger.info("[Chat] (not said: the server refuses the bot's chat) {}", line)
            return
        self._record(self.bot_name, line, said=True)
