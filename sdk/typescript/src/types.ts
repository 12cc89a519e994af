/**
 * The values a bot works with: plain, read-only, typed objects named after the wire
 * contract (`proto/spite/v1/game.proto`), in camelCase.
 *
 * A bot never sees a protocol buffer. The SDK converts every message from the referee
 * into these values (`convert.ts`) and every answer back. Enumerations are string
 * constants (`MoveKind.PLAY === "play"`), so they read well in logs and never carry
 * the wire's numbering (which keeps 0 for "unspecified"); only `convert.ts` knows it.
 *
 * | value    | values                                   | notation                                  |
 * |----------|------------------------------------------|-------------------------------------------|
 * | card     | 0 Joker / Skip-Bo wild, 1 Ace, 2..10,    | `*`, `A`, `2`..`10`, `J`, `Q`, `K`        |
 * |          | 11 Jack, 12 Queen, 13 King               |                                           |
 * | Move     | PLAY, DISCARD, PASS from HAND, STOCK,    | `H:7>C0`, `S:K>C2`, `D1:Q>C3`, `H:9>D0`,  |
 * |          | DISCARD_PILE                             | `pass`                                    |
 *
 * Piles are arrays of cards listed bottom to top; pile and seat indices are 0-based.
 */

/** A card's rank, 0..13: 0 = Joker / Skip-Bo wild, 1 = Ace, 2..10, 11 = Jack, 12 = Queen, 13 = King. */
export type Card = number;

export const JOKER: Card = 0;
export const ACE: Card = 1;
export const JACK: Card = 11;
export const QUEEN: Card = 12;
export const KING: Card = 13;

/** Bad move or card notation (`Move.parse`, `parseCard`). */
export class NotationError extends Error {
  override name = "NotationError";
}

const CARD_NAMES: ReadonlyMap<Card, string> = new Map([
  [JOKER, "*"], [ACE, "A"], [JACK, "J"], [QUEEN, "Q"], [KING, "K"],
]);
const CARDS_BY_NAME: ReadonlyMap<string, Card> = new Map([
  ["*", JOKER], ["JOKER", JOKER], ["W", JOKER], ["SB", JOKER], ["A", ACE], ["J", JACK], ["Q", QUEEN], ["K", KING],
]);

/** Short display name of a card: `*`, `A`, `2`..`10`, `J`, `Q`, `K`. */
export function cardName(card: Card): string {
  return CARD_NAMES.get(card) ?? String(card);
}

/** A card from its name (`*`, `A`, `J`, `Q`, `K`, case-insensitive) or its number 0..13. */
export function parseCard(text: string): Card {
  const key = text.trim().toUpperCase();
  const named = CARDS_BY_NAME.get(key);
  if (named !== undefined) return named;
  if (/^\d+$/.test(key) && Number(key) <= KING) return Number(key);
  throw new NotationError(`not a card: ${JSON.stringify(text)} (expected *, A, 2..10, J, Q, K or 0..13)`);
}

/** What a move does. */
export const MoveKind = {
  /** Play a card onto a centre pile. */
  PLAY: "play",
  /** Put a hand card on one of the mover's discard piles; ends the turn. */
  DISCARD: "discard",
  /** End the turn without discarding; legal only when no discard is. */
  PASS: "pass",
} as const;
export type MoveKind = (typeof MoveKind)[keyof typeof MoveKind];

/** Where a played card comes from. */
export const Source = {
  /** The mover's hand (also the source of every discard, and the unused source of PASS). */
  HAND: "hand",
  /** The top card of the mover's stock (its team's stock with partners). */
  STOCK: "stock",
  /** The top card of one of the mover's discard piles (`Move.sourceIndex` says which). */
  DISCARD_PILE: "discard-pile",
} as const;
export type Source = (typeof Source)[keyof typeof Source];

/** One move: where a card comes from, which card, where it goes. */
export interface Move {
  readonly kind: MoveKind;
  /** Where the card comes from (HAND for DISCARD; HAND, unused, for PASS). */
  readonly source: Source;
  /** The discard pile the card comes from when `source` is DISCARD_PILE, else 0. */
  readonly sourceIndex: number;
  /** The card moved (0 for PASS). */
  readonly card: Card;
  /** The centre pile for PLAY, the mover's discard pile for DISCARD, 0 for PASS. */
  readonly target: number;
}

const NOTATION = /^(H|S|D\d)\s*:\s*(\*|[A-Z]+|\d{1,2})\s*>\s*([CD])(\d)$/;

function newMove(kind: MoveKind, source: Source, sourceIndex: number, card: Card, target: number): Move {
  return Object.freeze({ kind, source, sourceIndex, card, target });
}

const PASS_MOVE: Move = newMove(MoveKind.PASS, Source.HAND, 0, 0, 0);

/** Making, printing, parsing and comparing moves. */
export const Move = {
  /** The one PASS move. */
  PASS: PASS_MOVE,

  /** Play `card` from `source` onto centre pile `target` (`sourceIndex`: the discard pile, for DISCARD_PILE). */
  play(source: Source, card: Card, target: number, sourceIndex = 0): Move {
    return newMove(MoveKind.PLAY, source, source === Source.DISCARD_PILE ? sourceIndex : 0, card, target);
  },

  /** Discard hand card `card` onto the mover's discard pile `pile`. */
  discard(card: Card, pile: number): Move {
    return newMove(MoveKind.DISCARD, Source.HAND, 0, card, pile);
  },

  /** The notation: `H:7>C0`, `S:K>C2`, `D1:Q>C3`, `H:9>D0`, `pass`. */
  format(move: Move): string {
    if (move.kind === MoveKind.PASS) return "pass";
    const source = move.source === Source.HAND ? "H" : move.source === Source.STOCK ? "S" : `D${move.sourceIndex}`;
    const target = (move.kind === MoveKind.PLAY ? "C" : "D") + String(move.target);
    return `${source}:${cardName(move.card)}>${target}`;
  },

  /**
   * Parse the notation (`H:7>C0`, `S:K>C2`, `D1:Q>C3`, `H:9>D0`, `pass`); case and
   * spaces around the punctuation do not matter. Throws {@link NotationError}.
   */
  parse(text: string): Move {
    if (text.trim().toLowerCase() === "pass") return PASS_MOVE;
    const match = NOTATION.exec(text.trim().toUpperCase());
    if (match === null) {
      throw new NotationError(`not a move: ${JSON.stringify(text.slice(0, 40))} `
        + "(expected e.g. H:7>C0, S:K>C1, D2:Q>C3, H:9>D0, pass)");
    }
    const [, source = "", cardText = "", targetKind, targetText = ""] = match;
    const card = parseCard(cardText);
    const target = Number(targetText);
    if (targetKind === "D") {
      if (source !== "H") throw new NotationError(`${JSON.stringify(text)}: only hand cards may be discarded`);
      return Move.discard(card, target);
    }
    if (source === "H") return Move.play(Source.HAND, card, target);
    if (source === "S") return Move.play(Source.STOCK, card, target);
    return Move.play(Source.DISCARD_PILE, card, target, Number(source.slice(1)));
  },

  /** Whether two moves are the same move (field by field). */
  equals(a: Move, b: Move): boolean {
    return a.kind === b.kind && a.source === b.source && a.sourceIndex === b.sourceIndex && a.card === b.card
      && a.target === b.target;
  },
} as const;

/** Every option of the match's game (the referee sends it in {@link Welcome}); docs/rules.md says what each means. */
export interface RuleSet {
  /** Canonical spec, e.g. `"standard"`, `"kings-only+short-15"`, `"skip-bo+4p"`. */
  readonly name: string;
  /** Rules version: bumped whenever the same seed and moves would give another game. */
  readonly version: number;
  /** Seats at the table; seats move in order 0, 1, 2, ... */
  readonly players: number;
  /** 2 v 2: seats 0 and 2 against seats 1 and 3, one shared stock per team. */
  readonly partners: boolean;
  /** `"spite"` (52-card decks plus jokers) or `"skip-bo"` (12 x 1..12 plus 18 wilds). */
  readonly deck: string;
  /** Decks shuffled together. */
  readonly decks: number;
  /** Jokers per 52-card deck. */
  readonly jokersPerDeck: number;
  /** Kings are wild (spite deck). */
  readonly kingsWild: boolean;
  /** Cards dealt to each stock. */
  readonly stockSize: number;
  /** Hands are refilled to this many cards. */
  readonly handSize: number;
  /** Shared centre piles, built from Ace (1) up to Queen (12). */
  readonly centrePiles: number;
  /** Discard piles per seat. */
  readonly discardPiles: number;
  /** Face-up cards on top of each stock (3 with open-stock); only the top is playable. */
  readonly openStock: number;
  /** House rule: a non-wild card playable on a centre pile now may not be discarded. */
  readonly noBlock: boolean;
  /** `"shuffle"` or `"set-aside"`. */
  readonly completedPiles: string;
  /** `"play-on"` or `"draw-game"`. */
  readonly drawPileExhausted: string;
  /** Whether Aces (Skip-Bo 1s) may be discarded. */
  readonly discardAces: boolean;
  /** `"win"` or `"stock-left"`. */
  readonly scoring: string;
  /** 0: games stand alone; N: the match is played until a seat or team reaches N points. */
  readonly matchPoints: number;
  /** After this many turns a game is drawn. */
  readonly turnCap: number;
  /** Ranks that are wild on centre piles. */
  readonly wildRanks: ReadonlySet<Card>;
}

/** The index of the stock `seat` plays from: its own, or its team's (`seat % 2`) with partners. */
export function stockOf(rules: RuleSet, seat: number): number {
  return rules.partners ? seat % 2 : seat;
}

/** The seat's team: itself, or `seat % 2` with partners. */
export function teamOf(rules: RuleSet, seat: number): number {
  return stockOf(rules, seat);
}

/** A stock as everyone sees it. */
export interface StockView {
  /** Cards left in the stock. */
  readonly count: number;
  /** Face-up cards, top first (one, or up to three with open-stock). Only the top is playable. */
  readonly visible: readonly Card[];
}

/** What an event records. */
export const EventKind = {
  /** The game begins; `seat` moves first. */
  DEAL: "deal",
  /** Turn number `count` begins for `seat`. */
  TURN: "turn",
  /** `seat` made `move`. */
  MOVE: "move",
  /** `seat` drew `count` cards; `cards` are filled only for the drawing seat. */
  DRAW: "draw",
  /** Stock `pile` shows `cards` face up (top first), `count` cards left in it. */
  REVEAL: "reveal",
  /** Centre pile `pile` reached the Queen; its `cards` left the table. */
  PILE_COMPLETED: "pile-completed",
  /** The draw pile was shuffled and holds `count` cards (its order is never sent). */
  SHUFFLE: "shuffle",
  /** The game is over. */
  GAME_OVER: "game-over",
} as const;
export type EventKind = (typeof EventKind)[keyof typeof EventKind];

/** Something that happened in the game, as this seat may see it. */
export interface Event {
  readonly kind: EventKind;
  /** The seat concerned, or -1. */
  readonly seat: number;
  /** The move, for MOVE events; else null. */
  readonly move: Move | null;
  /** Cards shown (see {@link EventKind} for which kinds carry them). */
  readonly cards: readonly Card[];
  /** A count (cards drawn, cards left, turn number), see {@link EventKind}. */
  readonly count: number;
  /** A pile index (stock or centre pile), or -1. */
  readonly pile: number;
}

/** One seat's view of a game at one moment: what it may see, nothing else. */
export interface Observation {
  /** The match's rule set (sent once, in Welcome, and attached to every observation). */
  readonly rules: RuleSet;
  /** The observing seat. */
  readonly seat: number;
  /** Turn number, from 1. */
  readonly turn: number;
  /** The seat whose decision it is. */
  readonly toMove: number;
  /** The observer's hand, sorted by rank. */
  readonly hand: readonly Card[];
  /** Cards in each seat's hand. */
  readonly handSizes: readonly number[];
  /** Each stock: one per seat, or one per team with partners (see {@link myStock}). */
  readonly stocks: readonly StockView[];
  /** Per seat, per discard pile, the cards bottom to top. */
  readonly discardPiles: readonly (readonly (readonly Card[])[])[];
  /** Per centre pile, the cards bottom to top; a pile's rank is its length. */
  readonly centrePiles: readonly (readonly Card[])[];
  /** Cards in the draw pile (its order is hidden from everyone). */
  readonly drawPileCount: number;
  /** Cards of completed piles waiting to become the draw pile (set-aside rule sets). */
  readonly setAsideCount: number;
  /** What happened since this seat's previous decision (its own last move included). */
  readonly events: readonly Event[];
  /** The observer's legal moves, in the engine's order, when it is to move; else empty. */
  readonly legalMoves: readonly Move[];
}

/** The stock the observing seat plays from. */
export function myStock(observation: Observation): StockView {
  const stock = observation.stocks[stockOf(observation.rules, observation.seat)];
  if (stock === undefined) throw new RangeError(`no stock for seat ${observation.seat}`);
  return stock;
}

/** The observing seat's discard piles, each bottom to top. */
export function myDiscardPiles(observation: Observation): readonly (readonly Card[])[] {
  return observation.discardPiles[observation.seat] ?? [];
}

/** The rank each centre pile needs next (1 for an empty pile). */
export function centreNeeds(observation: Observation): number[] {
  return observation.centrePiles.map((pile) => pile.length + 1);
}

/** How a game ended. The first four are the rules'; the others the referee's. */
export const Ending = {
  /** A seat (team) played the last card of its stock: it wins. */
  STOCK_EMPTIED: "stock-emptied",
  /** A full round passed with no card played or drawn: draw. */
  STALEMATE: "stalemate",
  /** The turn cap was reached: draw. */
  TURN_CAP: "turn-cap",
  /** classic-20: a draw found the draw pile empty: draw. */
  DRAW_PILE_EXHAUSTED: "draw-pile-exhausted",
  /** The offender ran out of time (decision limit and time bank). */
  TIMEOUT: "timeout",
  /** The offender sent an illegal move (forfeit policy, or a third strike). */
  ILLEGAL_MOVE: "illegal-move",
  /** The offender sent a message that is not a valid action. */
  MALFORMED: "malformed",
  /** The offender's process exited or its stream failed. */
  CRASH: "crash",
  /** The offender closed its stream mid-match. */
  DISCONNECT: "disconnect",
  /** The offender never connected in time. */
  NO_SHOW: "no-show",
  /** The offender was forfeited for another reason. */
  FORFEIT: "forfeit",
  /** An ending this SDK does not know (a newer referee); see the outcome's `reason`. */
  UNKNOWN: "unknown",
} as const;
export type Ending = (typeof Ending)[keyof typeof Ending];

const BY_RULES: ReadonlySet<Ending> = new Set<Ending>([
  Ending.STOCK_EMPTIED, Ending.STALEMATE, Ending.TURN_CAP, Ending.DRAW_PILE_EXHAUSTED,
]);

/** True when the game ended by the rules, false when the referee cut it off. */
export function endedByRules(ending: Ending): boolean {
  return BY_RULES.has(ending);
}

/** The result of one game. */
export interface Outcome {
  readonly ending: Ending;
  /** Seats that won (both partners of a team); empty for a draw. */
  readonly winners: readonly number[];
  /** Points per seat, by the rule set's scoring. */
  readonly scores: readonly number[];
  /** One human-readable sentence, e.g. "seat 1 emptied its stock". */
  readonly reason: string;
  /** The seat at fault for the referee's endings, else null. */
  readonly offender: number | null;
}

/** What bad behaviour (timeout, illegal or malformed action, wrong decision id) gets. */
export const Policy = {
  /** The offending seat loses the game at once (and the rest of the match). */
  FORFEIT: "forfeit",
  /** The referee plays a fallback legal move and counts a strike; 3 strikes forfeit. */
  SUBSTITUTE: "substitute",
  UNSPECIFIED: "unspecified",
} as const;
export type Policy = (typeof Policy)[keyof typeof Policy];

/** Limits on a seat's thinking time, in milliseconds. */
export interface TimeControl {
  /** Per decision; overruns are paid from the bank. */
  readonly decisionMs: number;
  /** Per game, per seat, for overruns. */
  readonly bankMs: number;
  /** To connect, and for the seat's first decision of the match. */
  readonly connectMs: number;
}

/** The referee's answer to Hello: the seat and the terms of the match. */
export interface Welcome {
  readonly seat: number;
  readonly rules: RuleSet;
  readonly timeControl: TimeControl;
  /** Games in the match (with `rules.matchPoints`, the most that will be played). */
  readonly games: number;
  readonly matchId: string;
  readonly protocolVersion: number;
  /** Each seat's bot name, by seat (empty for a seat not yet connected). */
  readonly seatNames: readonly string[];
  readonly policy: Policy;
}

/** What a bot did wrong, in an {@link ActionResult}. */
export const Fault = {
  NONE: "none",
  TIMEOUT: "timeout",
  ILLEGAL_MOVE: "illegal-move",
  MALFORMED: "malformed",
  WRONG_DECISION: "wrong-decision",
  /** A fault this SDK does not know (a newer referee); see `error`. */
  UNKNOWN: "unknown",
} as const;
export type Fault = (typeof Fault)[keyof typeof Fault];

/** The referee's verdict on one action. */
export interface ActionResult {
  readonly decisionId: bigint;
  /** Moves applied for the seat (several for a plan; the fallback move when the referee substituted one). */
  readonly applied: readonly Move[];
  /** Plan moves dropped unjudged because new information appeared. */
  readonly dropped: number;
  /** `Fault.NONE` when the action was accepted as sent. */
  readonly fault: Fault;
  /** Why, in words, when `fault` is set. */
  readonly error: string;
  /** Strikes this seat has in the current game (substitute policy; 3 forfeit). */
  readonly strikes: number;
}

/** The result of the whole match. */
export interface MatchResult {
  /** Points per seat over the match. */
  readonly points: readonly number[];
  /** Games won per seat. */
  readonly wins: readonly number[];
  /** Seats that won the match (both partners of a team); empty for a tie. */
  readonly winners: readonly number[];
  readonly reason: string;
}

/**
 * What `decide` returns: a {@link Move} (usually one of `observation.legalMoves`), a plan
 * (an array of moves the referee plays in order until one reveals something new), or an
 * index into `observation.legalMoves` (negative counts from the end, like `Array.at`).
 */
export type Choice = Move | readonly Move[] | number;

/** A {@link Choice} with a debug string, which the referee stores in the replay (cut to 256 bytes). */
export interface Decision {
  readonly choice: Choice;
  readonly debug: string;
}

/**
 * The terms of the decision being made, passed to `decide`. Times are
 * `performance.now()` values taken when the request arrived: they leave out the
 * network, so keep a margin.
 */
export class DecisionContext {
  constructor(
    /** The request's id (the SDK echoes it in the action). */
    readonly decisionId: bigint,
    /** The game's number within the match, from 0. */
    readonly gameNumber: number,
    /** `performance.now()` when the request arrived. */
    readonly received: number,
    /** Milliseconds allowed for this decision before the time bank is drawn on. */
    readonly deadlineMs: number,
    /** Milliseconds left in this game's time bank, spent when a decision runs over. */
    readonly bankMs: number,
  ) {}

  /** `performance.now()` value after which the time bank is drawn on. */
  get deadline(): number {
    return this.received + this.deadlineMs;
  }

  /** `performance.now()` value at which the decision times out (deadline plus bank). */
  get finalDeadline(): number {
    return this.deadline + this.bankMs;
  }

  /** Milliseconds until {@link deadline} (negative once it has passed). */
  timeLeft(now: number = performance.now()): number {
    return this.deadline - now;
  }
}
