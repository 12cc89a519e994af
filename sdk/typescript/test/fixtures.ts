/** Hand-built values for the unit tests. */

import { type Card, Move, type Observation, type RuleSet } from "../src";

export function rules(overrides: Partial<RuleSet> = {}): RuleSet {
  return {
    name: "standard", version: 1, players: 2, partners: false, deck: "spite", decks: 2, jokersPerDeck: 2,
    kingsWild: true, stockSize: 20, handSize: 5, centrePiles: 4, discardPiles: 4, openStock: 1, noBlock: false,
    completedPiles: "shuffle", drawPileExhausted: "play-on", discardAces: false, scoring: "win", matchPoints: 0,
    turnCap: 1000, wildRanks: new Set<Card>([0, 13]), ...overrides,
  };
}

/** An observation for seat 0 of a 2-seat standard game, with `legal` given in notation. */
export function observation(legal: readonly string[], overrides: Partial<Observation> = {}): Observation {
  return {
    rules: rules(), seat: 0, turn: 3, toMove: 0, hand: [], handSizes: [5, 5],
    stocks: [{ count: 20, visible: [9] }, { count: 20, visible: [4] }],
    discardPiles: [[[], [], [], []], [[], [], [], []]], centrePiles: [[], [], [], []],
    drawPileCount: 80, setAsideCount: 0, events: [], legalMoves: legal.map(Move.parse), ...overrides,
  };
}
