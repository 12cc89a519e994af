/** The ladder's settings and the per-game copy of a bot (the ladder itself: tests/arena/test_remote_languages.py). */

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { freshCopy, ladderRequested, readLadderConfig } from "../src";

describe("the ladder's settings", () => {
  it("joins only with both the address and the key", () => {
    assert.equal(ladderRequested({ SPITE_ARENA: "h:1", SPITE_BOT_KEY: "k" }), true);
    assert.equal(ladderRequested({ SPITE_ARENA: "h:1", SPITE_BOT_KEY: " " }), false);
    assert.equal(ladderRequested({ SPITE_BOT_KEY: "k" }), false);
  });

  it("reads the capacity, 1 by default, and refuses one out of 1..64", () => {
    assert.deepEqual(readLadderConfig({ SPITE_ARENA: " h:1 ", SPITE_BOT_KEY: "k" }),
      { address: "h:1", key: "k", capacity: 1 });
    assert.equal((readLadderConfig({ SPITE_ARENA: "h:1", SPITE_BOT_KEY: "k", SPITE_ARENA_CAPACITY: "64" }) as
      { capacity: number }).capacity, 64);
    for (const bad of ["0", "65", "2.5", "two", "-1"]) {
      assert.equal(readLadderConfig({ SPITE_ARENA: "h:1", SPITE_BOT_KEY: "k", SPITE_ARENA_CAPACITY: bad }),
        "SPITE_ARENA_CAPACITY must be a whole number in 1..64");
    }
  });

  it("refuses TLS rather than send the key in plaintext", () => {
    assert.match(String(readLadderConfig({ SPITE_ARENA: "tls:h:1", SPITE_BOT_KEY: "k" })), /plaintext only/);
    assert.match(String(readLadderConfig({ SPITE_ARENA: "h:1", SPITE_BOT_KEY: "k", SPITE_TLS_CA: "ca.pem" })),
      /plaintext only/);
  });
});

describe("freshCopy", () => {
  class Counting {
    readonly name = "counting";
    seen: number[] = [];
    byGame = new Map<number, Set<string>>();
    decide(): number {
      this.seen.push(this.seen.length);
      return 0;
    }
  }

  it("copies the state deeply and keeps the class", () => {
    const pristine = new Counting();
    pristine.byGame.set(0, new Set(["a"]));
    const first = freshCopy(pristine);
    first.decide();
    first.byGame.get(0)?.add("b");
    const second = freshCopy(pristine);
    assert.ok(second instanceof Counting);
    assert.deepEqual([first.seen, second.seen, pristine.seen], [[0], [], []]);
    assert.deepEqual([...(second.byGame.get(0) ?? [])], ["a"]);
  });

  it("keeps shared references shared inside the copy", () => {
    const shared = { n: 1 };
    const copy = freshCopy({ a: shared, b: shared, name: "x", decide: () => 0 });
    assert.equal(copy.a, copy.b);
    assert.notEqual(copy.a, shared);
  });
});
