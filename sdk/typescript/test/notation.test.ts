import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { cardName, Move, MoveKind, NotationError, parseCard, Source } from "../src";

describe("cards", () => {
  it("names every rank", () => {
    assert.deepEqual([0, 1, 2, 7, 10, 11, 12, 13].map(cardName), ["*", "A", "2", "7", "10", "J", "Q", "K"]);
  });

  it("parses names and numbers, and refuses the rest", () => {
    assert.deepEqual(["*", "a", "j", " Q ", "k", "10", "0", "13"].map(parseCard), [0, 1, 11, 12, 13, 10, 0, 13]);
    for (const bad of ["14", "X", "", "-1", "1.5"]) assert.throws(() => parseCard(bad), NotationError);
  });
});

describe("move notation", () => {
  const cases: [string, Move][] = [
    ["H:7>C0", Move.play(Source.HAND, 7, 0)],
    ["S:K>C2", Move.play(Source.STOCK, 13, 2)],
    ["D1:Q>C3", Move.play(Source.DISCARD_PILE, 12, 3, 1)],
    ["H:9>D0", Move.discard(9, 0)],
    ["H:*>C1", Move.play(Source.HAND, 0, 1)],
    ["H:10>D3", Move.discard(10, 3)],
    ["pass", Move.PASS],
  ];

  for (const [text, move] of cases) {
    it(`${text} round-trips`, () => {
      assert.deepEqual(Move.parse(text), move);
      assert.equal(Move.format(move), text);
    });
  }

  it("gives each kind its fields", () => {
    assert.deepEqual(Move.parse("D1:Q>C3"),
      { kind: MoveKind.PLAY, source: Source.DISCARD_PILE, sourceIndex: 1, card: 12, target: 3 });
    assert.deepEqual(Move.parse("H:9>D0"),
      { kind: MoveKind.DISCARD, source: Source.HAND, sourceIndex: 0, card: 9, target: 0 });
    assert.deepEqual(Move.PASS, { kind: MoveKind.PASS, source: Source.HAND, sourceIndex: 0, card: 0, target: 0 });
  });

  it("ignores case and spaces around the punctuation", () => {
    assert.deepEqual(Move.parse(" h : 7 > c0 "), Move.parse("H:7>C0"));
    assert.deepEqual(Move.parse("d2:a>c1"), Move.play(Source.DISCARD_PILE, 1, 1, 2));
    assert.equal(Move.parse("PASS"), Move.PASS);
  });

  it("refuses what is not a move", () => {
    for (const bad of ["", "H7C0", "X:7>C0", "H:7>E0", "S:7>D0", "D1:7>D2", "H:14>C0", "H:7>C", "passes"]) {
      assert.throws(() => Move.parse(bad), NotationError, bad);
    }
  });

  it("compares moves by value and keeps them frozen", () => {
    assert.ok(Move.equals(Move.parse("S:K>C2"), Move.play(Source.STOCK, 13, 2)));
    assert.ok(!Move.equals(Move.parse("S:K>C2"), Move.parse("S:K>C1")));
    assert.ok(Object.isFrozen(Move.parse("H:7>C0")));
  });
});
