import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";

import {
  actionResultFromWire, actionToWire, ConversionError, cutUtf8, Ending, EventKind, Fault, LOADER_OPTIONS, Move,
  moveFromWire,
  moveToWire, observationFromWire, outcomeFromWire, playCodec, Policy, rulesFromWire, welcomeFromWire,
} from "../src";
import type { Move__Output as WireMove } from "../src/generated/spite/v1/Move";
import type { Observation__Output } from "../src/generated/spite/v1/Observation";
import type { RuleSet__Output } from "../src/generated/spite/v1/RuleSet";

import { rules } from "./fixtures";

function wireMove(fields: Partial<Record<keyof WireMove, unknown>>): WireMove {
  return { kind: "MOVE_KIND_UNSPECIFIED", source: "SOURCE_UNSPECIFIED", sourceIndex: 0, card: 0, target: 0,
    ...fields } as WireMove;
}

const WIRE_RULES: RuleSet__Output = {
  name: "partners", version: 1, players: 4, partners: true, deck: "spite", decks: 2, jokersPerDeck: 2,
  kingsWild: true, stockSize: 20, handSize: 5, centrePiles: 4, discardPiles: 4, openStock: 1, noBlock: false,
  completedPiles: "shuffle", drawPileExhausted: "play-on", discardAces: false, scoring: "win", matchPoints: 0,
  turnCap: 1000, wildRanks: [0, 13],
};

describe("moves on the wire (enums are the engine's numbers plus one)", () => {
  it("reads each kind and source", () => {
    assert.deepEqual(moveFromWire(wireMove({ kind: "MOVE_KIND_PLAY", source: "SOURCE_HAND", card: 7 })),
      Move.parse("H:7>C0"));
    assert.deepEqual(moveFromWire(wireMove({ kind: "MOVE_KIND_PLAY", source: "SOURCE_STOCK", card: 13, target: 2 })),
      Move.parse("S:K>C2"));
    assert.deepEqual(moveFromWire(wireMove({
      kind: "MOVE_KIND_PLAY", source: "SOURCE_DISCARD_PILE", sourceIndex: 1, card: 12, target: 3,
    })), Move.parse("D1:Q>C3"));
    assert.deepEqual(moveFromWire(wireMove({ kind: "MOVE_KIND_DISCARD", source: "SOURCE_HAND", card: 9 })),
      Move.parse("H:9>D0"));
    assert.equal(moveFromWire(wireMove({ kind: "MOVE_KIND_PASS" })), Move.PASS);
  });

  it("drops a source index that only a discard pile may have", () => {
    const move = moveFromWire(wireMove({ kind: "MOVE_KIND_PLAY", source: "SOURCE_HAND", sourceIndex: 2, card: 5 }));
    assert.equal(move.sourceIndex, 0);
  });

  it("refuses moves that are not moves", () => {
    for (const bad of [
      wireMove({}),
      wireMove({ kind: 9 }),
      wireMove({ kind: "MOVE_KIND_PLAY" }),
      wireMove({ kind: "MOVE_KIND_DISCARD", source: "SOURCE_STOCK", card: 4 }),
    ]) {
      assert.throws(() => moveFromWire(bad), ConversionError);
    }
  });

  it("writes enum names, and nothing but the kind for PASS", () => {
    assert.deepEqual(moveToWire(Move.parse("D1:Q>C3")),
      { kind: "MOVE_KIND_PLAY", source: "SOURCE_DISCARD_PILE", sourceIndex: 1, card: 12, target: 3 });
    assert.deepEqual(moveToWire(Move.parse("H:9>D2")),
      { kind: "MOVE_KIND_DISCARD", source: "SOURCE_HAND", sourceIndex: 0, card: 9, target: 2 });
    assert.deepEqual(moveToWire(Move.PASS), { kind: "MOVE_KIND_PASS" });
  });

  it("round-trips every move through the wire form", () => {
    for (const text of ["H:7>C0", "S:K>C2", "D1:Q>C3", "H:9>D0", "pass", "D3:*>C1"]) {
      const wire = { ...wireMove({}), ...moveToWire(Move.parse(text)) } as WireMove;
      assert.equal(Move.format(moveFromWire(wire)), text);
    }
  });
});

describe("observations, rules and results", () => {
  const wireObservation: Observation__Output = {
    seat: 2, turn: 7, toMove: 2, hand: [1, 5, 5, 13], handSizes: [5, 4, 4, 5],
    stocks: [{ count: 18, visible: [6] }, { count: 19, visible: [11] }],
    discardPiles: [0, 1, 2, 3].map(() => ({ piles: [{ cards: [9, 8] }, { cards: [] }, { cards: [] }, { cards: [] }] })),
    centrePiles: [{ cards: [1, 2] }, { cards: [] }, { cards: [] }, { cards: [] }],
    drawPileCount: 60, setAsideCount: 0,
    events: [
      { kind: "EVENT_KIND_TURN", seat: 2, move: null, cards: [], count: 7, pile: -1 },
      { kind: "EVENT_KIND_MOVE", seat: 1, cards: [], count: 0, pile: -1,
        move: wireMove({ kind: "MOVE_KIND_PLAY", source: "SOURCE_STOCK", card: 2, target: 0 }) },
      { kind: "EVENT_KIND_DRAW", seat: 2, move: null, cards: [5, 13], count: 2, pile: -1 },
    ],
    legalMoves: [
      wireMove({ kind: "MOVE_KIND_PLAY", source: "SOURCE_HAND", card: 1, target: 1 }),
      wireMove({ kind: "MOVE_KIND_DISCARD", source: "SOURCE_HAND", card: 5, target: 1 }),
    ],
  };

  it("converts an observation whole", () => {
    const partners = rulesFromWire(WIRE_RULES);
    const view = observationFromWire(wireObservation, partners);
    assert.equal(view.rules, partners);
    assert.deepEqual([view.seat, view.turn, view.toMove], [2, 7, 2]);
    assert.deepEqual(view.hand, [1, 5, 5, 13]);
    assert.deepEqual(view.stocks[0], { count: 18, visible: [6] });
    assert.deepEqual(view.discardPiles[3], [[9, 8], [], [], []]);
    assert.deepEqual(view.centrePiles, [[1, 2], [], [], []]);
    assert.deepEqual(view.events.map((e) => e.kind), [EventKind.TURN, EventKind.MOVE, EventKind.DRAW]);
    assert.deepEqual(view.events[1]?.move, Move.parse("S:2>C0"));
    assert.equal(view.events[0]?.move, null);
    assert.deepEqual(view.legalMoves.map(Move.format), ["H:A>C1", "H:5>D1"]);
    assert.ok(Object.isFrozen(view) && Object.isFrozen(view.hand) && Object.isFrozen(view.discardPiles[0]));
  });

  it("converts the rule set, wild ranks as a set", () => {
    const partners = rulesFromWire(WIRE_RULES);
    assert.equal(partners.partners, true);
    assert.equal(partners.jokersPerDeck, 2);
    assert.ok(partners.wildRanks.has(13) && partners.wildRanks.has(0) && !partners.wildRanks.has(12));
    assert.throws(() => rulesFromWire(null), ConversionError);
  });

  it("turns offender -1 into null and an unknown ending into UNKNOWN", () => {
    const base = { winners: [1], scores: [0, 1], reason: "seat 1 emptied its stock", offender: -1 };
    assert.deepEqual(outcomeFromWire({ ...base, ending: "ENDING_STOCK_EMPTIED" }),
      { ...base, ending: Ending.STOCK_EMPTIED, offender: null });
    assert.equal(outcomeFromWire({ ...base, ending: "ENDING_CRASH", offender: 0 }).offender, 0);
    assert.equal(outcomeFromWire({ ...base, ending: 42 as unknown as "ENDING_CRASH" }).ending, Ending.UNKNOWN);
  });

  it("converts Welcome and ActionResult", () => {
    const welcome = welcomeFromWire({
      seat: 1, rules: WIRE_RULES, timeControl: { decisionMs: 1000, bankMs: 10000, connectMs: 10000 }, games: 3,
      matchId: "abc", protocolVersion: 1, seatNames: ["a", "b", "c", "d"], policy: "POLICY_SUBSTITUTE",
    });
    assert.equal(welcome.policy, Policy.SUBSTITUTE);
    assert.deepEqual(welcome.timeControl, { decisionMs: 1000, bankMs: 10000, connectMs: 10000 });
    const result = actionResultFromWire({
      decisionId: "18446744073709551615", fault: "FAULT_ILLEGAL_MOVE", error: "H:7>C0: no", strikes: 1, dropped: 0,
      applied: [wireMove({ kind: "MOVE_KIND_DISCARD", source: "SOURCE_HAND", card: 4, target: 3 })],
    });
    assert.equal(result.decisionId, 18446744073709551615n);
    assert.equal(result.fault, Fault.ILLEGAL_MOVE);
    assert.deepEqual(result.applied, [Move.parse("H:4>D3")]);
  });
});

describe("actions", () => {
  const legal = ["H:7>C0", "H:9>D0", "H:9>D1"].map(Move.parse);

  it("sends a move by value, an index, or a plan", () => {
    assert.deepEqual(actionToWire("7", Move.parse("H:7>C0"), legal),
      { decisionId: "7", move: { kind: "MOVE_KIND_PLAY", source: "SOURCE_HAND", sourceIndex: 0, card: 7, target: 0 } });
    assert.deepEqual(actionToWire(7n, 0, legal), { decisionId: "7", moveIndex: 0 });
    assert.deepEqual(actionToWire("7", -1, legal), { decisionId: "7", moveIndex: 2 });
    const plan = actionToWire("7", [Move.parse("H:7>C0"), Move.parse("H:9>D0")], legal);
    assert.equal(plan.plan?.moves?.length, 2);
  });

  it("carries a debug string cut to 256 bytes of UTF-8", () => {
    assert.equal(actionToWire("1", { choice: 1, debug: "because" }, legal).debug, "because");
    const long = actionToWire("1", { choice: 1, debug: "é".repeat(200) }, legal).debug ?? "";
    assert.equal(long, "é".repeat(128));
    assert.equal(cutUtf8("ab€€", 4), "ab");
    assert.equal(cutUtf8("short"), "short");
  });

  it("refuses what is not a choice", () => {
    assert.throws(() => actionToWire("1", 1.5, legal), RangeError);
    assert.throws(() => actionToWire("1", -4, legal), RangeError);
    assert.throws(() => actionToWire("1", "H:7>C0" as unknown as number, legal), TypeError);
    assert.throws(() => actionToWire("1", [1, 2] as unknown as Move[], legal), TypeError);
  });
});

describe("the real wire encoding", () => {
  it("keeps a uint64 decision id exact and a zero move index present", () => {
    const codec = playCodec();
    const bytes = codec.requestSerialize({ action: { decisionId: "18446744073709551615", moveIndex: 0 } });
    const back = codec.requestDeserialize(bytes);
    assert.equal(back.body, "action");
    assert.equal(back.action?.decisionId, "18446744073709551615");
    assert.equal(back.action?.choice, "moveIndex");
    assert.equal(back.action?.moveIndex, 0);
  });

  it("decodes a referee message into the names the converters expect", () => {
    const codec = playCodec();
    const bytes = codec.responseSerialize({
      decision: { decisionId: "3", deadlineMs: 1000, observation: { seat: 1, legalMoves: [moveToWire(Move.PASS)] } },
    });
    const message = codec.responseDeserialize(bytes);
    assert.equal(message.body, "decision");
    const view = observationFromWire(message.decision?.observation ?? null, rules());
    assert.deepEqual(view.legalMoves, [Move.PASS]);
    assert.deepEqual(view.hand, []);
    assert.equal(message.decision?.bankMs, 0);
  });
});

describe("the generated types", () => {
  it("are made with the options the SDK loads the proto with", () => {
    const manifest = JSON.parse(readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    const generate = manifest.scripts["generate"] ?? "";
    assert.equal(LOADER_OPTIONS.longs, String);
    assert.equal(LOADER_OPTIONS.enums, String);
    assert.equal(LOADER_OPTIONS.keepCase, false);
    for (const flag of ["--longs=String", "--enums=String", "--defaults", "--oneofs", "-I ../../proto"]) {
      assert.ok(generate.includes(flag), `${flag} missing from the generate script: ${generate}`);
    }
    assert.ok(LOADER_OPTIONS.defaults && LOADER_OPTIONS.oneofs && !generate.includes("--keepCase"));
  });
});
