/**
 * Wire messages <-> the SDK's values (`types.ts`). The only module that knows the
 * wire's enum names and numbers: the wire keeps 0 of every enum for "unspecified"
 * (`MOVE_KIND_PLAY = 1`), the SDK uses string constants (`MoveKind.PLAY = "play"`).
 *
 * Messages arrive decoded by @grpc/proto-loader with {@link LOADER_OPTIONS}: enums as
 * their names (a number for a value this SDK's proto does not know), 64-bit integers as
 * decimal strings, defaults filled in. Every function is pure; `*FromWire` throws
 * {@link ConversionError} for a message that cannot be a valid value.
 */

import type { Action } from "./generated/spite/v1/Action";
import type { ActionResult__Output } from "./generated/spite/v1/ActionResult";
import type { Event__Output } from "./generated/spite/v1/Event";
import type { MatchOver__Output } from "./generated/spite/v1/MatchOver";
import type { Move as WireMoveInput, Move__Output as WireMove } from "./generated/spite/v1/Move";
import type { MoveKind__Output as WireMoveKind } from "./generated/spite/v1/MoveKind";
import type { Observation__Output } from "./generated/spite/v1/Observation";
import type { Outcome__Output } from "./generated/spite/v1/Outcome";
import type { RuleSet__Output } from "./generated/spite/v1/RuleSet";
import type { Source__Output as WireSource } from "./generated/spite/v1/Source";
import type { Welcome__Output } from "./generated/spite/v1/Welcome";
import {
  type ActionResult, type Card, type Choice, type Decision, Ending, type Event, EventKind, Fault, type MatchResult,
  Move, MoveKind, type Observation, type Outcome, Policy, type RuleSet, Source, type Welcome,
} from "./types";

/** The referee keeps at most this many bytes (UTF-8) of an action's debug string. */
export const MAX_DEBUG_BYTES = 256;
/** The referee accepts at most this many moves in one plan. */
export const MAX_PLAN_MOVES = 32;

/** A wire message that does not make a valid SDK value. */
export class ConversionError extends Error {
  override name = "ConversionError";
}

const MOVE_KINDS: Readonly<Record<string, MoveKind>> = {
  MOVE_KIND_PLAY: MoveKind.PLAY, MOVE_KIND_DISCARD: MoveKind.DISCARD, MOVE_KIND_PASS: MoveKind.PASS,
};
const MOVE_KIND_NAMES: Readonly<Record<MoveKind, WireMoveKind>> = {
  play: "MOVE_KIND_PLAY", discard: "MOVE_KIND_DISCARD", pass: "MOVE_KIND_PASS",
};
const SOURCES: Readonly<Record<string, Source>> = {
  SOURCE_HAND: Source.HAND, SOURCE_STOCK: Source.STOCK, SOURCE_DISCARD_PILE: Source.DISCARD_PILE,
};
const SOURCE_NAMES: Readonly<Record<Source, WireSource>> = {
  hand: "SOURCE_HAND", stock: "SOURCE_STOCK", "discard-pile": "SOURCE_DISCARD_PILE",
};
const EVENT_KINDS: Readonly<Record<string, EventKind>> = {
  EVENT_KIND_DEAL: EventKind.DEAL, EVENT_KIND_TURN: EventKind.TURN, EVENT_KIND_MOVE: EventKind.MOVE,
  EVENT_KIND_DRAW: EventKind.DRAW, EVENT_KIND_REVEAL: EventKind.REVEAL,
  EVENT_KIND_PILE_COMPLETED: EventKind.PILE_COMPLETED, EVENT_KIND_SHUFFLE: EventKind.SHUFFLE,
  EVENT_KIND_GAME_OVER: EventKind.GAME_OVER,
};
const ENDINGS: Readonly<Record<string, Ending>> = {
  ENDING_STOCK_EMPTIED: Ending.STOCK_EMPTIED, ENDING_STALEMATE: Ending.STALEMATE, ENDING_TURN_CAP: Ending.TURN_CAP,
  ENDING_DRAW_PILE_EXHAUSTED: Ending.DRAW_PILE_EXHAUSTED, ENDING_TIMEOUT: Ending.TIMEOUT,
  ENDING_ILLEGAL_MOVE: Ending.ILLEGAL_MOVE, ENDING_MALFORMED: Ending.MALFORMED, ENDING_CRASH: Ending.CRASH,
  ENDING_DISCONNECT: Ending.DISCONNECT, ENDING_NO_SHOW: Ending.NO_SHOW, ENDING_FORFEIT: Ending.FORFEIT,
};
const FAULTS: Readonly<Record<string, Fault>> = {
  FAULT_NONE: Fault.NONE, FAULT_TIMEOUT: Fault.TIMEOUT, FAULT_ILLEGAL_MOVE: Fault.ILLEGAL_MOVE,
  FAULT_MALFORMED: Fault.MALFORMED, FAULT_WRONG_DECISION: Fault.WRONG_DECISION,
};
const POLICIES: Readonly<Record<string, Policy>> = {
  POLICY_FORFEIT: Policy.FORFEIT, POLICY_SUBSTITUTE: Policy.SUBSTITUTE,
};

function lookup<T>(table: Readonly<Record<string, T>>, value: string | number): T | undefined {
  return Object.hasOwn(table, String(value)) ? table[String(value)] : undefined;
}

/** The move a wire `Move` stands for. */
export function moveFromWire(message: WireMove): Move {
  const kind = lookup(MOVE_KINDS, message.kind);
  if (kind === undefined) throw new ConversionError(`move kind ${String(message.kind)} is not PLAY, DISCARD or PASS`);
  if (kind === MoveKind.PASS) return Move.PASS;
  const source = lookup(SOURCES, message.source);
  if (source === undefined) throw new ConversionError(`a ${kind} move needs a source, got ${String(message.source)}`);
  if (kind === MoveKind.DISCARD) {
    if (source !== Source.HAND) throw new ConversionError(`a discard comes from the hand, not ${source}`);
    return Move.discard(message.card, message.target);
  }
  return Move.play(source, message.card, message.target, message.sourceIndex);
}

/** The wire form of a move (PASS leaves every other field unset, as the proto says). */
export function moveToWire(move: Move): WireMoveInput {
  const kind = MOVE_KIND_NAMES[move.kind];
  if (kind === undefined) throw new TypeError(`not a move kind: ${JSON.stringify(move.kind)}`);
  if (move.kind === MoveKind.PASS) return { kind };
  const source = SOURCE_NAMES[move.source];
  if (source === undefined) throw new TypeError(`not a move source: ${JSON.stringify(move.source)}`);
  return { kind, source, sourceIndex: move.sourceIndex, card: move.card, target: move.target };
}

/** The match's rule set; a Welcome without one is a protocol error. */
export function rulesFromWire(message: RuleSet__Output | null): RuleSet {
  if (message === null) throw new ConversionError("the Welcome carries no rule set");
  return Object.freeze({
    name: message.name, version: message.version, players: message.players, partners: message.partners,
    deck: message.deck, decks: message.decks, jokersPerDeck: message.jokersPerDeck, kingsWild: message.kingsWild,
    stockSize: message.stockSize, handSize: message.handSize, centrePiles: message.centrePiles,
    discardPiles: message.discardPiles, openStock: message.openStock, noBlock: message.noBlock,
    completedPiles: message.completedPiles, drawPileExhausted: message.drawPileExhausted,
    discardAces: message.discardAces, scoring: message.scoring, matchPoints: message.matchPoints,
    turnCap: message.turnCap, wildRanks: new Set<Card>(message.wildRanks),
  });
}

export function eventFromWire(message: Event__Output): Event {
  const kind = lookup(EVENT_KINDS, message.kind);
  if (kind === undefined) throw new ConversionError(`unknown event kind ${String(message.kind)}`);
  return Object.freeze({
    kind, seat: message.seat, move: message.move === null ? null : moveFromWire(message.move),
    cards: Object.freeze([...message.cards]), count: message.count, pile: message.pile,
  });
}

export function outcomeFromWire(message: Outcome__Output | null): Outcome {
  if (message === null) throw new ConversionError("the GameOver carries no outcome");
  return Object.freeze({
    ending: lookup(ENDINGS, message.ending) ?? Ending.UNKNOWN,
    winners: Object.freeze([...message.winners]), scores: Object.freeze([...message.scores]),
    reason: message.reason, offender: message.offender < 0 ? null : message.offender,
  });
}

function frozen<T>(items: readonly T[]): readonly T[] {
  return Object.freeze([...items]);
}

/** An observation from its wire form and the match's rule set (sent once, in Welcome). */
export function observationFromWire(message: Observation__Output | null, rules: RuleSet): Observation {
  if (message === null) throw new ConversionError("the message carries no observation");
  return Object.freeze({
    rules, seat: message.seat, turn: message.turn, toMove: message.toMove,
    hand: frozen(message.hand), handSizes: frozen(message.handSizes),
    stocks: Object.freeze(message.stocks.map((s) => Object.freeze({ count: s.count, visible: frozen(s.visible) }))),
    discardPiles: Object.freeze(message.discardPiles.map(
      (seat) => Object.freeze(seat.piles.map((p) => frozen(p.cards))))),
    centrePiles: Object.freeze(message.centrePiles.map((p) => frozen(p.cards))),
    drawPileCount: message.drawPileCount, setAsideCount: message.setAsideCount,
    events: Object.freeze(message.events.map(eventFromWire)),
    legalMoves: Object.freeze(message.legalMoves.map(moveFromWire)),
  });
}

export function welcomeFromWire(message: Welcome__Output): Welcome {
  const time = message.timeControl;
  return Object.freeze({
    seat: message.seat, rules: rulesFromWire(message.rules),
    timeControl: Object.freeze({
      decisionMs: time?.decisionMs ?? 0, bankMs: time?.bankMs ?? 0, connectMs: time?.connectMs ?? 0,
    }),
    games: message.games, matchId: message.matchId, protocolVersion: message.protocolVersion,
    seatNames: frozen(message.seatNames), policy: lookup(POLICIES, message.policy) ?? Policy.UNSPECIFIED,
  });
}

export function actionResultFromWire(message: ActionResult__Output): ActionResult {
  const fault = lookup(FAULTS, message.fault) ?? Fault.UNKNOWN;
  return Object.freeze({
    decisionId: BigInt(message.decisionId), applied: Object.freeze(message.applied.map(moveFromWire)),
    dropped: message.dropped, fault,
    error: message.error || (fault === Fault.NONE ? "" : `fault ${String(message.fault)}`),
    strikes: message.strikes,
  });
}

export function matchResultFromWire(message: MatchOver__Output): MatchResult {
  return Object.freeze({
    points: frozen(message.points), wins: frozen(message.wins), winners: frozen(message.winners),
    reason: message.reason,
  });
}

/** `debug` cut to {@link MAX_DEBUG_BYTES} bytes of UTF-8, never inside a character. */
export function cutUtf8(text: string, maxBytes: number = MAX_DEBUG_BYTES): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1; // back off a continuation byte
  return bytes.subarray(0, end).toString("utf8");
}

function isMove(value: unknown): value is Move {
  return typeof value === "object" && value !== null && "kind" in value && "target" in value;
}

/** Whether `value` is a {@link Decision} (a choice with a debug string) rather than a bare choice. */
export function isDecision(value: unknown): value is Decision {
  return typeof value === "object" && value !== null && "choice" in value && !Array.isArray(value);
}

/**
 * The Action answering `decisionId` with `choice` (what `decide` returned). An index
 * may be negative (counted from the end of `legalMoves`). Throws `TypeError` for
 * anything that is not a choice and `RangeError` for an index no move list can have;
 * whether a move is legal is the referee's to judge.
 */
export function actionToWire(decisionId: string | bigint, choice: Choice | Decision,
  legalMoves: readonly Move[]): Action {
  const action: Action = { decisionId: decisionId.toString() };
  let bare: unknown = choice;
  if (isDecision(choice)) {
    bare = choice.choice;
    if (choice.debug) action.debug = cutUtf8(String(choice.debug));
  }
  if (typeof bare === "number") {
    let index = bare;
    if (index < 0 && -legalMoves.length <= index) index += legalMoves.length;
    if (!Number.isInteger(index) || index < 0 || index >= 2 ** 32) {
      throw new RangeError(`decide() returned move index ${bare}, outside the ${legalMoves.length} legal moves`);
    }
    action.moveIndex = index;
  } else if (isMove(bare)) {
    action.move = moveToWire(bare);
  } else if (Array.isArray(bare) && bare.every(isMove)) {
    action.plan = { moves: bare.map(moveToWire) };
  } else {
    throw new TypeError("decide() must return a Move, an array of Moves (a plan), an index into "
      + `observation.legalMoves, or a Decision {choice, debug}; got ${String(JSON.stringify(bare)).slice(0, 80)}`);
  }
  return action;
}

/** A choice in words, for logs: `H:7>C0`, `plan H:7>C0 H:8>C0`, `#3 (H:9>D0)`. */
export function describeChoice(choice: Choice | Decision, legalMoves: readonly Move[]): string {
  const bare = isDecision(choice) ? choice.choice : choice;
  if (typeof bare === "number") {
    const move = legalMoves.at(bare);
    return move === undefined ? `#${bare}` : `#${bare} (${Move.format(move)})`;
  }
  if (Array.isArray(bare)) return "plan " + (bare as readonly Move[]).map(Move.format).join(" ");
  return Move.format(bare as Move);
}
