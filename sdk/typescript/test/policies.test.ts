import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { type Card, greedyMove, Move } from "../src";

import { observation, rules } from "./fixtures";

interface Case {
  readonly name: string;
  /** The legal moves, in notation, in the engine's order. */
  readonly legal: readonly string[];
  readonly want: string;
  /** The mover (0 or 1). */
  readonly seat?: number;
  /** The mover's discard piles, and the other seat's. */
  readonly piles?: readonly (readonly Card[])[];
  readonly other?: readonly (readonly Card[])[];
  readonly wild?: readonly Card[];
}

// Each expectation was checked against greedy_move in sdk/python/spite_sdk/policies.py.
const CASES: readonly Case[] = [
  {
    name: "a stock card goes first, even before a natural hand card",
    legal: ["H:A>C0", "S:A>C1", "H:9>D0"],
    want: "S:A>C1",
  },
  {
    name: "a wild stock card goes first too",
    legal: ["H:2>C0", "S:K>C0", "H:9>D0"],
    want: "S:K>C0",
  },
  {
    name: "a natural hand card before a discard-pile card",
    legal: ["D0:A>C0", "H:A>C1", "H:9>D0"],
    want: "H:A>C1",
  },
  {
    name: "a natural discard-pile card before a wild hand card",
    legal: ["H:K>C0", "D2:3>C1", "H:K>D0"],
    want: "D2:3>C1",
  },
  {
    name: "the first natural hand card in the engine's order",
    legal: ["H:*>C0", "H:5>C2", "H:5>C3", "H:7>C1"],
    want: "H:5>C2",
  },
  {
    name: "with only wild plays, the highest non-wild card is discarded onto an empty pile",
    legal: ["H:K>C0", "H:4>D0", "H:4>D1", "H:9>D0", "H:9>D1", "H:K>D0", "H:K>D1"],
    want: "H:9>D0",
  },
  {
    name: "onto the pile whose top is closest above",
    legal: ["H:9>D0", "H:9>D1", "H:9>D2", "H:9>D3", "H:4>D0", "H:4>D1", "H:4>D2", "H:4>D3"],
    piles: [[12], [10], [7], [3]],
    want: "H:9>D1",
  },
  {
    name: "an equal top fits best",
    legal: ["H:9>D0", "H:9>D1", "H:9>D2", "H:9>D3"],
    piles: [[10], [9], [7], [3]],
    want: "H:9>D1",
  },
  {
    name: "an empty pile before any top",
    legal: ["H:9>D0", "H:9>D1", "H:9>D2", "H:9>D3"],
    piles: [[9], [10], [], []],
    want: "H:9>D2",
  },
  {
    name: "with every top below, the closest below",
    legal: ["H:9>D0", "H:9>D1", "H:9>D2", "H:9>D3"],
    piles: [[2], [7], [5], [8]],
    want: "H:9>D3",
  },
  {
    name: "equal distances above and below: above wins",
    legal: ["H:9>D0", "H:9>D1", "H:9>D2", "H:9>D3"],
    piles: [[8], [10], [2], [3]],
    want: "H:9>D1",
  },
  {
    name: "equal distance, equal side: the lower pile index",
    legal: ["H:9>D0", "H:9>D1", "H:9>D2", "H:9>D3"],
    piles: [[11], [2], [11], [3]],
    want: "H:9>D0",
  },
  {
    name: "wilds are discarded only when nothing else may go, highest first",
    legal: ["H:*>D0", "H:*>D1", "H:K>D0", "H:K>D1"],
    want: "H:K>D0",
  },
  {
    name: "a wild play rather than a pass",
    legal: ["H:K>C0", "H:*>C0", "pass"],
    want: "H:K>C0",
  },
  {
    name: "pass when nothing else is legal",
    legal: ["pass"],
    want: "pass",
  },
  {
    name: "the mover's own discard piles (seat 1)",
    legal: ["H:9>D0", "H:9>D1", "H:9>D2", "H:9>D3"],
    seat: 1, piles: [[10], [11], [], []], other: [[], [], [12], [9]],
    want: "H:9>D2",
  },
  {
    name: "the rule set's wild ranks decide what is natural (skip-bo: K would be natural)",
    legal: ["H:K>C0", "D0:5>C1"],
    wild: [0],
    want: "H:K>C0",
  },
];

describe("greedyMove chooses what the Python reference chooses", () => {
  for (const c of CASES) {
    it(c.name, () => {
      const seat = c.seat ?? 0;
      const empty: Card[][] = [[], [], [], []];
      const own = c.piles ?? empty;
      const other = c.other ?? empty;
      const view = observation(c.legal, {
        seat, toMove: seat, discardPiles: seat === 0 ? [own, other] : [other, own],
        rules: rules(c.wild ? { wildRanks: new Set(c.wild) } : {}),
      });
      assert.equal(Move.format(greedyMove(view)), c.want);
    });
  }

  it("returns one of the legal move objects itself", () => {
    const view = observation(["H:7>C0", "H:9>D0"]);
    assert.ok(view.legalMoves.includes(greedyMove(view)));
  });

  it("refuses an observation without legal moves", () => {
    assert.throws(() => greedyMove(observation([])), RangeError);
  });
});
