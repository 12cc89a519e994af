"""A match: several games between seats, refereed with deadlines and policies.

The match coroutine is the only owner of the game state. It talks to each seat
through a :class:`SeatChannel` (gRPC stream or stdio, ``referee/core/seats.py``), which
delivers the bot's messages into the seat's inbox queue and carries the referee's
messages out. Deadlines are enforced while waiting (``referee/core/deadlines.py``): a timed
``get`` on the inbox, never a timed read on the stream itself.

Bad behaviour never escapes this module as an exception: it becomes a fault with
a reason, sent to the bot, counted in the seat's report (``referee/core/reports.py``), and
handled by the match policy (``forfeit`` or ``substitute`` with three strikes).

This module is the game loop and the judging of decisions; seats, deadlines and reports
are their own modules (``referee.core.seats``, ``referee.core.deadlines``,
``referee.core.reports``), imported from there, never through here.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.core import feed, limits, reports
from referee.core import replay as replay_file
from referee.core.deadlines import (
    GIVEN_CAP,
    GIVEN_PROBE_S,
    LAG_LIMIT_MS,
    LAG_PROBE_S,
    GivenTime,
    LagMonitor,
    ProcessControl,
    RefereeLag,
    Thinking,
    TimeControl,
    given_slack_ms,
)
from referee.core.reports import GameResult, SeatReport
from referee.core.seats import (
    MAX_INBOX,
    PROCESS_EXIT_WAIT_S,
    Closed,
    Garbled,
    Seat,
    SeatChannel,
    SeatRoster,
    _cut,
    describe_exit,
)
from referee.core.status import FaultKind, MatchState, SeatStatus
from spite.v1 import referee_pb2 as rpb
from spite_engine import (
    Ending,
    EventKind,
    GameState,
    IllegalMoveError,
    MalformedMoveError,
    Move,
    RuleSet,
    observe,
    observe_public,
    visible_events,
)
from spite_engine.rng import derive
from spite_wire import (
    PROTOCOL_VERSION,
    events_to_proto,
    move_from_proto,
    move_to_proto,
    observation_to_proto,
    outcome_to_proto,
    rules_to_proto,
)
from spite_wire.encoding import decision_message, event_batch_message

__all__ = ["LAG_LIMIT_MS", "LAG_PROBE_S", "MAX_DEBUG", "MAX_INBOX", "MAX_PLAN", "MAX_STRIKES", "PROCESS_EXIT_WAIT_S",
           "Closed", "GameResult", "Garbled", "LagMonitor", "Match", "MatchConfig", "Policy",
           "ProcessControl", "RefereeLag", "Seat", "SeatChannel", "SeatReport", "Thinking", "TimeControl",
           "describe_exit"]

log = logging.getLogger("spite.referee")

MAX_PLAN = limits.PLAN_MOVES.high
MAX_DEBUG = limits.DEBUG_BYTES
MAX_STRIKES = 3
YIELD_EVERY = 16
"""Decisions between two forced yields to the event loop (a decision that finds its answer
already waiting does not yield on its own), so no match keeps other matches and RPCs waiting."""


class Policy(enum.Enum):
    """What bad behaviour gets (docs/protocol.md)."""

    FORFEIT = "forfeit"
    """The offending seat loses the game at once."""
    SUBSTITUTE = "substitute"
    """The referee plays the last legal move (a discard or pass: it ends the turn) and
    counts a strike; the third strike in a game forfeits it."""


REFUSED: dict[FaultKind, tuple[rpb.Fault, Ending]] = {
    FaultKind.TIMEOUT: (rpb.FAULT_TIMEOUT, Ending.TIMEOUT),
    FaultKind.ILLEGAL_MOVE: (rpb.FAULT_ILLEGAL_MOVE, Ending.ILLEGAL_MOVE),
    FaultKind.MALFORMED: (rpb.FAULT_MALFORMED, Ending.MALFORMED),
    FaultKind.WRONG_DECISION: (rpb.FAULT_WRONG_DECISION, Ending.MALFORMED),
}
"""The faults of a refused answer: what its ``ActionResult`` says, and how a forfeit for it ends
the game."""

ENDED: dict[Ending, FaultKind] = {Ending.CRASH: FaultKind.CRASH, Ending.DISCONNECT: FaultKind.DISCONNECT}
"""The faults of a seat whose channel ended."""


@dataclass
class MatchConfig:
    rules: RuleSet
    seat_names: list[str]
    time_control: TimeControl = field(default_factory=TimeControl)
    games: int = 1
    """Games to play; with ``rules.match_points``, the most that will be played."""
    seed: int = 0
    """Master seed: game k is dealt from ``derive(seed, f"game:{k}")``."""
    policy: Policy = Policy.SUBSTITUTE
    replay_dir: Path | None = None
    probe_timeout: tuple[int, int] | None = None
    """Conformance checks only: (seat, n) closes that seat's n-th decision (1-based) at
    once, as a timeout, so the kit can see the bot survive a rejection of its answer."""
    thinking: Thinking = Thinking.ALLOWED
    """Whether launched bots run between their decisions (see :class:`Thinking`)."""
    lag_limit_ms: int = LAG_LIMIT_MS
    """Referee lateness over which a timeout voids the match instead of losing it."""
    hide_names: bool = False
    """Welcome names no other seat's bot: each reads ``seat N`` (a hosted ladder, so a bot
    cannot lose on purpose to a chosen opponent). Reports and replays keep the names."""
    live_feed: Path | None = None
    """Write the match's public feed to this file while it runs (:mod:`referee.core.feed`)."""

    def __post_init__(self) -> None:
        if len(self.seat_names) != self.rules.players:
            raise limits.LimitError(f"{self.rules.name} needs {self.rules.players} seats, got {len(self.seat_names)}")
        for index, name in enumerate(self.seat_names):
            limits.check_name(name, f"seat {index}'s name")
        limits.GAMES.check(self.games)
        limits.SEED.check(self.seed)
        limits.MATCH_POINTS.check(self.rules.match_points)

    def game_seed(self, game_number: int) -> int:
        return derive(self.seed, f"game:{game_number}")


class Match(SeatRoster):
    """Runs one match to the end; create through :class:`referee.transports.session.Arena`."""

    config: MatchConfig

    def __init__(self, match_id: str, config: MatchConfig) -> None:
        self.match_id = match_id
        self.config = config
        self.rules = config.rules
        self.seats = [Seat(i, name) for i, name in enumerate(config.seat_names)]
        self.state_name = MatchState.WAITING
        self.results: list[GameResult] = []
        self.match_over: rpb.MatchOver | None = None
        self.finished = asyncio.Event()
        self.spectators: list[feed.Spectator] = []
        if config.live_feed is not None:
            self.spectators.append(feed.LiveFeed(config.live_feed, config.rules))
        self._decision_id = 0
        self.game_number = 0
        self.state: GameState | None = None
        self.void_reason = ""
        """Why the match is void (``state_name == "void"``): the platform failed, not a bot."""
        self.lag: LagMonitor | None = None

    # -- connection -----------------------------------------------------------------------

    def welcome(self, seat: Seat) -> rpb.RefereeMessage:
        return rpb.RefereeMessage(welcome=rpb.Welcome(
            seat=seat.index, rules=rules_to_proto(self.rules), time_control=self.config.time_control.to_pb(),
            games=self.config.games, match_id=self.match_id, protocol_version=PROTOCOL_VERSION,
            seat_names=[f"seat {s.index}" if self.config.hide_names and s is not seat else s.report.name
                        for s in self.seats],
            policy=rpb.POLICY_FORFEIT if self.config.policy is Policy.FORFEIT else rpb.POLICY_SUBSTITUTE))

    # -- the match ------------------------------------------------------------------------

    async def run(self) -> None:
        self.lag = LagMonitor.shared()
        self.lag.start()
        try:
            await self._run()
        except asyncio.CancelledError:
            self.state_name = MatchState.ABORTED
            raise
        except RefereeLag as error:
            log.warning("match %s void: %s", self.match_id, error)
            self.state_name = MatchState.VOID
            self.void_reason = str(error)
        except Exception:
            log.exception("match %s failed", self.match_id)
            self.state_name = MatchState.ABORTED
        finally:
            self.lag.stop()
            for seat in self.seats:
                seat.resume()  # a frozen bot must be able to see the end and exit
            self.finished.set()
            for seat in self.seats:
                if seat.channel is not None:
                    seat.channel.close()
            for queue in self.spectators:
                queue.put_nowait(None)

    async def _run(self) -> None:
        await self._wait_for_seats()
        self.state_name = MatchState.RUNNING
        points = [0] * self.rules.players
        wins = [0] * self.rules.players
        for number in range(self.config.games):
            await asyncio.sleep(0)  # every game yields: no match, however long, starves the referee
            why = self._no_contest()
            if why and not self.results:
                self.state_name = MatchState.VOID
                self.void_reason = f"no seat ever played: {why}"
                log.info("match %s void: %s", self.match_id, self.void_reason)
                return
            if why:
                log.info("match %s: games %d.. not played: %s", self.match_id, number, why)
                break
            result = await self._play_game(number)
            self.results.append(result)
            for s, score in enumerate(result.outcome.scores):
                points[s] += score
            for s in result.outcome.winners:
                wins[s] += 1
            if self.rules.match_points and max(points) >= self.rules.match_points:
                break
        best = max(points)
        winners = [s for s in range(self.rules.players) if points[s] == best]
        if len({self.rules.team_of(s) for s in winners}) > 1:
            winners = []
        who = f"seat {winners[0]}" if len(winners) == 1 else "seats " + " and ".join(map(str, winners))
        tally = "-".join(map(str, points))
        reason = f"{who} won the match ({tally})" if winners else f"the match is tied ({tally})"
        self.match_over = rpb.MatchOver(points=points, wins=wins, winners=winners, reason=reason)
        message = rpb.RefereeMessage(match_over=self.match_over)
        for seat in self.seats:
            await seat.send(message)
            if seat.gone is None and seat.report.status is SeatStatus.ACTIVE:
                seat.report.status = SeatStatus.DONE
        self._publish(rpb.SpectatorMessage(match_over=self.match_over))
        self.state_name = MatchState.FINISHED

    async def _play_game(self, number: int) -> GameResult:
        self.game_number = number
        seed = self.config.game_seed(number)
        state = GameState.new(self.rules, seed)
        self.state = state
        strikes = [0] * self.rules.players
        bank = [self.config.time_control.bank_ms] * self.rules.players
        move_meta: dict[int, dict[str, Any]] = {}
        for seat in self.seats:
            await seat.send(rpb.RefereeMessage(game_start=rpb.GameStart(
                game_number=number, first_seat=state.first_seat,
                observation=observation_to_proto(observe(state, seat.index)), compact=seat.compact)))
        self._publish(rpb.SpectatorMessage(game_start=rpb.GameStart(
            game_number=number, first_seat=state.first_seat, observation=observation_to_proto(observe_public(state)))))
        # cursors[seat]: the log up to here has reached the seat (an EventBatch or a decision's
        # observation.events); cursors[-1]: the spectators
        cursors = [len(state.log)] * (self.rules.players + 1)
        for seat in self.seats:
            if seat.gone is not None and state.outcome is None:
                self._forfeit_gone(state, seat)
        decisions = 0
        while state.outcome is None:
            decisions += 1
            if decisions % YIELD_EVERY == 0:
                await asyncio.sleep(0)
            seat = self.seats[state.to_move]
            if seat.gone is not None:
                self._forfeit_gone(state, seat)
                break
            turn = state.turn
            await self._decide(state, seat, strikes, bank, move_meta, cursors)
            if state.turn != turn or state.outcome is not None:
                await self._flush(state, cursors)  # a turn's events, once, to the seats that ask for them
            else:
                self._publish_events(state, cursors)
        await self._flush(state, cursors, game_over=True)
        outcome = state.outcome
        if outcome is None:
            raise RuntimeError("a game loop ended without an outcome")
        over = rpb.GameOver(game_number=number, outcome=outcome_to_proto(outcome))
        for seat in self.seats:
            await seat.send(rpb.RefereeMessage(game_over=over))
        self._publish(rpb.SpectatorMessage(game_over=over))
        replay = None
        if self.config.replay_dir is not None:
            header = {"match_id": self.match_id, "game_number": number,
                      "seats": [{"seat": s.index, "name": s.report.name, "version": s.report.version}
                                for s in self.seats]}
            path = Path(self.config.replay_dir) / f"{self.match_id}-g{number:03d}.jsonl.gz"
            replay = str(replay_file.write(path, header, state, move_meta))
        moves = sum(1 for e in state.log if e.kind == EventKind.MOVE)
        return GameResult(number, seed, state.first_seat, outcome, moves, state.turn, replay)

    async def _flush(self, state: GameState, cursors: list[int], game_over: bool = False) -> None:
        """Send the seats (and spectators) the events they have not seen, redacted for each:
        at the end of a turn every seat but the compact ones (their decisions carry the events),
        at the end of the game every seat."""
        for seat in self.seats:
            if game_over or not seat.compact:
                await self._send_events(state, seat, cursors)
        self._publish_events(state, cursors)

    async def _send_events(self, state: GameState, seat: Seat, cursors: list[int]) -> None:
        start, end = cursors[seat.index], len(state.log)
        if start < end:
            cursors[seat.index] = end
            await seat.send(event_batch_message(self.game_number, visible_events(state, seat.index, start)))

    def _publish_events(self, state: GameState, cursors: list[int]) -> None:
        """Each move's public events to the spectators, as it happens."""
        start, end = cursors[-1], len(state.log)
        if start < end and self.spectators:
            self._publish(rpb.SpectatorMessage(events=rpb.EventBatch(
                game_number=self.game_number, events=events_to_proto(visible_events(state, None, start)))))
        cursors[-1] = end

    def _publish(self, message: rpb.SpectatorMessage) -> None:
        for queue in self.spectators:
            queue.put_nowait(message)

    # -- one decision ---------------------------------------------------------------------

    async def _decide(self, state: GameState, seat: Seat, strikes: list[int], bank: list[int],
                      move_meta: dict[int, dict[str, Any]], cursors: list[int]) -> None:
        self._decision_id += 1
        decision_id = self._decision_id
        view = observe(state, seat.index)
        deadline_ms = self.config.time_control.deadline_ms(first=not seat.decided_before)
        seat.decided_before = True
        if seat.paused:
            seat.resume()
        assert self.lag is not None
        lag_mark = self.lag.mark()
        if not seat.compact:  # "what happened since the last message" comes before the decision
            await self._send_events(state, seat, cursors)
        cursors[seat.index] = len(state.log)  # the observation's events reach the seat
        await seat.send(decision_message(decision_id, self.game_number, view, deadline_ms, bank[seat.index],
                                         packed_moves=seat.compact))
        started = time.monotonic()
        cpu_started = seat.process.cpu_seconds() if seat.process is not None else 0.0
        deadline = started + (deadline_ms + bank[seat.index]) / 1000
        probe = self.config.probe_timeout
        if probe is not None and probe == (seat.index, seat.report.decisions + 1):
            deadline = started
        action: rpb.Action | None = None
        fault: tuple[FaultKind, str] | None = None
        stale = 0
        # what the machine gave the bot (GivenTime): a baseline once the decision has been open
        # a while; at the deadline, the time it was kept off the CPU since then is added to it
        window_end, cap = deadline, started + GIVEN_CAP * (deadline - started)
        given: GivenTime | None = None
        probe_at = started + min(GIVEN_PROBE_S, (deadline - started) / 4) if seat.process is not None else math.inf
        owed_ms = late_ms = 0.0
        while action is None and fault is None:
            if seat.gone is not None:
                break
            item = await seat.next_item(min(deadline, probe_at))
            if item is None:
                now = time.monotonic()
                if now < min(deadline, probe_at):
                    continue
                if now < deadline and seat.process is not None:  # open a while: the baseline
                    probe_at = math.inf
                    given = GivenTime(seat.process, now, opened=started)
                    given = given if given.measurable else None
                    continue
                # owed: the time the bot was kept off the CPU, or the referee's own loop was
                # stalled (an answer may be waiting unread), less the time already added
                late_ms += (now - deadline) * 1000  # the timer's own lateness: a stall too
                not_given_s = given.not_given_s(now) if given is not None else 0.0
                owed_ms = not_given_s * 1000 + max(self.lag.since(lag_mark), late_ms) - (deadline - window_end) * 1000
                if owed_ms > given_slack_ms(window_end - started) and now < cap:
                    deadline = min(cap, now + owed_ms / 1000)
                    continue
                break
            if isinstance(item, Closed):
                seat.gone = await self._explain(seat, item)
                break
            if isinstance(item, Garbled):
                seat.report.unreadable += 1
                fault = (FaultKind.MALFORMED, item.detail)
            elif item.WhichOneof("body") != "action":
                fault = (FaultKind.MALFORMED,
                         f"expected an Action for decision {decision_id}, got {item.WhichOneof('body')}")
            elif item.action.decision_id < decision_id:
                stale += 1
                if stale > MAX_INBOX:
                    fault = (FaultKind.MALFORMED, f"flooding: more than {MAX_INBOX} actions for closed decisions")
                elif stale <= 3:
                    await seat.send(rpb.RefereeMessage(result=rpb.ActionResult(
                        decision_id=item.action.decision_id, fault=rpb.FAULT_WRONG_DECISION,
                        error=f"decision {item.action.decision_id} is closed; the action was dropped")))
            elif item.action.decision_id > decision_id:
                fault = (FaultKind.WRONG_DECISION, f"decision {item.action.decision_id} does not exist yet "
                                               f"(the open decision is {decision_id})")
            else:
                action = item.action
        ended = time.monotonic()
        elapsed_ms = (ended - started) * 1000
        not_given_ms = given.not_given_s(ended) * 1000 if given is not None and elapsed_ms > deadline_ms else 0.0
        if seat.process is not None:
            seat.report.decision_cpu_us.append(int(max(0.0, seat.process.cpu_seconds() - cpu_started) * 1e6))
            if self.config.thinking is Thinking.FROZEN and seat.gone is None:
                seat.pause()
        bank[seat.index] = max(0, int(bank[seat.index] - max(0.0, elapsed_ms - deadline_ms - not_given_ms)))
        seat.report.decisions += 1
        seat.report.decision_us.append(int(elapsed_ms * 1000))
        if seat.gone is not None:
            self._forfeit_gone(state, seat)
            return
        if action is None and fault is None:
            late_ms = (ended - deadline) * 1000
            window_ms = (deadline - started) * 1000
            limit = self.config.lag_limit_ms
            if window_ms > 0 and late_ms > limit:  # judged late at the very end: too late to give back
                raise RefereeLag(f"the referee ran {late_ms:.0f} ms late during seat "
                                 f"{seat.index}'s decision {decision_id} (limit {limit} ms): its timeout "
                                 f"cannot be blamed on the bot")
            allowed_ms = (window_end - started) * 1000
            if owed_ms > max(limit, allowed_ms / 10):
                raise RefereeLag(f"seat {seat.index}'s bot was not given its time for decision {decision_id}: "
                                 f"it was still owed {owed_ms:.0f} ms of its {allowed_ms:.0f} ms after "
                                 f"{elapsed_ms:.0f} ms (kept off the CPU by other work, or the referee "
                                 f"ran late): its timeout cannot be blamed on the bot")
            fault = (FaultKind.TIMEOUT, f"no answer to decision {decision_id} within {deadline_ms} ms "
                                    f"plus the time bank")
        if fault is None and action is not None:
            fault = await self._apply_action(state, seat, decision_id, action, view.legal_moves,
                                             int(elapsed_ms * 1000), move_meta)
        if fault is not None:
            await self._handle_fault(state, seat, decision_id, fault, strikes, move_meta)

    async def _explain(self, seat: Seat, closed: Closed) -> Closed:
        """A stream that ended: if the bot's process is exiting, say so with its exit status."""
        if seat.process_exit is None:
            return closed
        try:
            code = await asyncio.wait_for(asyncio.shield(seat.process_exit), PROCESS_EXIT_WAIT_S)
        except (asyncio.TimeoutError, TimeoutError):
            return closed
        return Closed(Ending.CRASH, describe_exit(code, seat.exit_limit))

    async def _apply_action(self, state: GameState, seat: Seat, decision_id: int, action: rpb.Action,
                            legal: tuple[Move, ...], elapsed_us: int,
                            move_meta: dict[int, dict[str, Any]]) -> tuple[FaultKind, str] | None:
        """Apply a well-formed action; return the fault if it is not one."""
        choice = action.WhichOneof("choice")
        debug = _cut(action.debug, MAX_DEBUG) if action.debug else ""
        try:
            if choice == "move_index":
                if action.move_index >= len(legal):
                    return (FaultKind.MALFORMED, f"move_index {action.move_index} is out of range "
                                             f"(there are {len(legal)} legal moves)")
                moves = [legal[action.move_index]]
            elif choice == "move":
                moves = [move_from_proto(action.move)]
            elif choice == "plan":
                if not 0 < len(action.plan.moves) <= MAX_PLAN:
                    return (FaultKind.MALFORMED, f"a plan holds 1..{MAX_PLAN} moves, got {len(action.plan.moves)}")
                moves = [move_from_proto(m) for m in action.plan.moves]
            else:
                return (FaultKind.MALFORMED, "the action carries no move_index, move or plan")
        except MalformedMoveError as error:
            return (FaultKind.MALFORMED, f"malformed move: {error}")
        applied: list[Move] = []
        for move in moves:
            start = len(state.log)
            try:
                if applied:
                    state.apply_checked(move, seat.index)
                elif choice == "move_index" or move in legal:  # the first move: from the decision's own list
                    state.apply(move)
                else:
                    raise IllegalMoveError(state.why_illegal(move))
            except IllegalMoveError as error:
                if applied:
                    await seat.send(rpb.RefereeMessage(result=rpb.ActionResult(
                        decision_id=decision_id, applied=[move_to_proto(m) for m in applied])))
                return (FaultKind.ILLEGAL_MOVE, f"illegal move: {error}")
            move_meta[start] = {"us": elapsed_us if not applied else 0, "debug": debug if not applied else ""}
            applied.append(move)
            if len(moves) > 1 and state.news_for(seat.index, start):
                break
        dropped = len(moves) - len(applied)
        if dropped or not seat.compact:  # a compact seat hears of an accepted action only when a plan was cut
            await seat.send(rpb.RefereeMessage(result=rpb.ActionResult(
                decision_id=decision_id, applied=[move_to_proto(m) for m in applied], dropped=dropped)))
        return None

    async def _handle_fault(self, state: GameState, seat: Seat, decision_id: int, fault: tuple[FaultKind, str],
                            strikes: list[int], move_meta: dict[int, dict[str, Any]]) -> None:
        kind, reason = fault
        report = seat.report
        if kind is FaultKind.TIMEOUT:
            report.timeouts += 1
        elif kind is FaultKind.ILLEGAL_MOVE:
            report.illegal_moves += 1
        else:
            report.malformed += 1
        report.add_fault(kind, f"game {self.game_number} decision {decision_id}: {reason}")
        strikes[seat.index] += 1
        code, ending = REFUSED[kind]
        if state.outcome is not None:
            return
        if self.config.policy is Policy.FORFEIT or strikes[seat.index] >= MAX_STRIKES:
            why = reason if self.config.policy is Policy.FORFEIT else f"third strike: {reason}"
            await seat.send(rpb.RefereeMessage(result=rpb.ActionResult(
                decision_id=decision_id, fault=code, error=why, strikes=strikes[seat.index])))
            self._forfeit(state, seat, ending, f"seat {seat.index} forfeits: {why}")
            return
        fallback = state.legal_moves()[-1]
        move_meta[len(state.log)] = {"us": 0, "debug": f"substituted by the referee: {reason}"}
        state.apply(fallback)
        await seat.send(rpb.RefereeMessage(result=rpb.ActionResult(
            decision_id=decision_id, applied=[move_to_proto(fallback)], fault=code,
            error=f"{reason}; the referee played {fallback} (strike {strikes[seat.index]} of {MAX_STRIKES})",
            strikes=strikes[seat.index])))

    def _forfeit(self, state: GameState, seat: Seat, ending: Ending, reason: str) -> None:
        if state.outcome is None:
            state.forfeit(seat.index, ending, reason)
        seat.report.status = {Ending.TIMEOUT: SeatStatus.TIMEOUT, Ending.NO_SHOW: SeatStatus.TIMEOUT,
                              Ending.CRASH: SeatStatus.ERROR, Ending.DISCONNECT: SeatStatus.ERROR,
                              }.get(ending, SeatStatus.INVALID)

    def _forfeit_gone(self, state: GameState, seat: Seat) -> None:
        """A seat whose channel ended forfeits the game; the first time in the match, its report
        counts why (a no-show's was recorded when its connect time ran out)."""
        gone = seat.gone
        assert gone is not None
        self._forfeit(state, seat, gone.ending, gone.detail)
        if seat.loss_recorded or gone.ending is Ending.NO_SHOW:
            return
        seat.loss_recorded = True
        if gone.ending is Ending.MALFORMED:  # a line or frame over the cap, or flooding
            seat.report.malformed += 1
            seat.report.add_fault(FaultKind.MALFORMED, f"game {self.game_number}: {gone.detail}")
        else:
            seat.report.crashes += 1
            seat.report.add_fault(ENDED.get(gone.ending, FaultKind.CRASH), f"game {self.game_number}: {gone.detail}")

    # -- reports --------------------------------------------------------------------------

    def status_pb(self) -> rpb.MatchStatus:
        return reports.status_pb(self)

    def report(self) -> reports.MatchSummary:
        """The whole result, typed (:class:`referee.core.reports.MatchSummary`)."""
        return reports.report(self)

    def summary(self) -> dict[str, Any]:
        """The whole result as plain data (for the tournament store and --json output)."""
        return reports.summary(self)
