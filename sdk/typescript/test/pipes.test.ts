/**
 * Protobuf frames on the referee's pipes: the PipeStream on bytes split every which way, the
 * same hostile streams as the Python and Go SDKs' (tests/referee/test_stdio_frames.py,
 * sdk/go/spite/frames_test.go), a whole match through playPipes, and real bot processes
 * under SPITE_STDIO for runBot's exit statuses and its one line on stderr.
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as path from "node:path";
import { describe, it } from "node:test";

import {
  type Bot, FrameError, MAX_FRAME_BYTES, PipeStream, playCodec, playPipes, RefereeError, varint,
} from "../src";
import type { BotMessage__Output } from "../src/generated/spite/v1/BotMessage";
import type { RefereeMessage } from "../src/generated/spite/v1/RefereeMessage";

/** The BotMessages in `data`, a bot's frames, read with a varint decoder of the test's own. */
function botMessages(data: Buffer): BotMessage__Output[] {
  const messages: BotMessage__Output[] = [];
  for (let at = 0; at < data.length;) {
    let size = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = data[at++] ?? 0;
      size |= (byte & 0x7f) << shift;
      if (byte < 0x80) break;
    }
    assert.ok(at + size <= data.length, "a frame cut short");
    messages.push(playCodec().requestDeserialize(data.subarray(at, at + size)));
    at += size;
  }
  return messages;
}

function frame(message: RefereeMessage): Buffer {
  const body = playCodec().responseSerialize(message);
  return Buffer.concat([varint(body.length), body]);
}

/** A PipeStream reading `data` in pieces of `piece` bytes, and the frames it writes, as BotMessages. */
function pipes(data: Buffer, piece = 1 << 16): { stream: PipeStream; written: () => BotMessage__Output[] } {
  let at = 0;
  const out: Buffer[] = [];
  const stream = new PipeStream(() => {
    if (at >= data.length) return null;
    const chunk = data.subarray(at, at + piece);
    at += chunk.length;
    return Buffer.from(chunk);
  }, (bytes) => { out.push(Buffer.from(bytes)); });
  return { stream, written: () => botMessages(Buffer.concat(out)) };
}

const RULES = {
  name: "standard", version: 1, players: 2, partners: false, deck: "spite", decks: 2, jokersPerDeck: 2,
  kingsWild: true, stockSize: 20, handSize: 5, centrePiles: 4, discardPiles: 4, openStock: 1, turnCap: 1000,
  wildRanks: [0, 13], completedPiles: "shuffle", drawPileExhausted: "play-on", scoring: "win",
};

const OBSERVATION = {
  seat: 1, turn: 2, toMove: 1, hand: [3, 7, 9], handSizes: [5, 3],
  stocks: [{ count: 20, visible: [4] }, { count: 20, visible: [1] }],
  discardPiles: [{ piles: [{}, {}, {}, {}] }, { piles: [{}, {}, {}, {}] }],
  centrePiles: [{}, {}, {}, {}], drawPileCount: 80,
  legalMoves: [
    { kind: "MOVE_KIND_PLAY" as const, source: "SOURCE_STOCK" as const, card: 1, target: 0 },
    { kind: "MOVE_KIND_DISCARD" as const, source: "SOURCE_HAND" as const, card: 9, target: 0 },
  ],
};

/** The referee's side of one game of one decision, as frames. */
const ONE_DECISION: RefereeMessage[] = [
  { welcome: { seat: 1, rules: RULES, timeControl: { decisionMs: 900, bankMs: 5000, connectMs: 8000 }, games: 1,
    matchId: "m1", protocolVersion: 1, seatNames: ["other", "test"], policy: "POLICY_FORFEIT" } },
  { gameStart: { gameNumber: 0, firstSeat: 0, observation: { ...OBSERVATION, legalMoves: [] } } },
  { decision: { decisionId: "9007199254740993", gameNumber: 0, observation: OBSERVATION, deadlineMs: 900,
    bankMs: 5000 } },
  { result: { decisionId: "9007199254740993", applied: [OBSERVATION.legalMoves[0] ?? {}] } },
  { gameOver: { gameNumber: 0, outcome: { ending: "ENDING_STOCK_EMPTIED", winners: [1], scores: [0, 1],
    reason: "seat 1 emptied its stock", offender: -1 } } },
  { matchOver: { points: [0, 1], wins: [0, 1], winners: [1], reason: "seat 1 won the match (0-1)" } },
];

/** The same hostile streams as the Python and Go SDKs', each with the words of its refusal. */
const HOSTILE: [string, Buffer, string][] = [
  ["a size of 2^40", varint(2 ** 40), "a frame of 1099511627776 bytes, over 64 KiB"],
  ["one byte over the cap", Buffer.concat([varint(MAX_FRAME_BYTES + 1), Buffer.alloc(10)]),
    "a frame of 65537 bytes, over 64 KiB"],
  ["a size varint of 11 bytes", Buffer.concat([Buffer.alloc(10, 0x80), Buffer.from([1])]),
    "a frame length over 10 bytes"],
  ["a size varint cut short", Buffer.alloc(9, 0xff), "a frame length cut short"],
  ["a frame cut short", Buffer.concat([varint(100), Buffer.alloc(10, 0x08)]),
    "a frame cut short by the end of the stream (10 of 100 bytes)"],
  ["garbage bytes", Buffer.concat([varint(4), Buffer.alloc(4, 0xff)]), "a frame of 4 bytes is not a RefereeMessage"],
];

describe("PipeStream", () => {
  it("reads the referee's frames back whole and in order however the reads split them", () => {
    const messages: RefereeMessage[] = [];
    for (let i = 0; i < 40; i++) {
      messages.push({ decision: { decisionId: String(BigInt(i) << BigInt(i % 60)), deadlineMs: 1000,
        packedLegalMoves: Array.from({ length: i * 50 }, (_, k) => k) } });
    }
    const data = Buffer.concat(messages.map(frame));
    for (const piece of [1, 2, 3, 7, 64, 4096]) {
      const { stream } = pipes(data, piece);
      for (const [i, want] of messages.entries()) {
        const got = stream.receive();
        assert.equal(got?.body, "decision", `pieces of ${piece}: message ${i}`);
        assert.equal(got.decision?.decisionId, want.decision?.decisionId);
        assert.deepEqual(got.decision?.packedLegalMoves, want.decision?.packedLegalMoves);
      }
      assert.equal(stream.receive(), null, `pieces of ${piece}: after the last frame`);
    }
  });

  for (const [what, data, words] of HOSTILE) {
    it(`refuses ${what} with its reason, in one line`, () => {
      for (const piece of [1, 3, 1 << 16]) {
        assert.throws(() => pipes(data, piece).stream.receive(), (error: unknown) => {
          assert.ok(error instanceof FrameError, String(error));
          assert.ok(error.message.startsWith("the referee's frames are unreadable: "), error.message);
          assert.ok(error.message.includes(words), error.message);
          assert.ok(!error.message.includes("\n"), error.message);
          return true;
        });
      }
    });
  }

  it("reads a frame of exactly the cap as a message", () => {
    let message: RefereeMessage = {};
    for (let n = MAX_FRAME_BYTES; n > 0; n--) {
      message = { welcome: { matchId: "x".repeat(n) } };
      if (playCodec().responseSerialize(message).length === MAX_FRAME_BYTES) break;
    }
    assert.equal(playCodec().responseSerialize(message).length, MAX_FRAME_BYTES);
    assert.equal(pipes(frame(message)).stream.receive()?.welcome?.matchId, message.welcome?.matchId);
  });
});

describe("playPipes", () => {
  it("says Hello, plays a match and answers each decision on frames", async () => {
    const { stream, written } = pipes(Buffer.concat(ONE_DECISION.map(frame)), 5);
    const seen: string[] = [];
    const bot: Bot = {
      name: "test-bot", version: "1.2.3",
      decide: (observation) => ({ choice: observation.legalMoves[0] ?? 0, debug: "stock first" }),
      onGameOver: (gameNumber, outcome) => { seen.push(`over ${gameNumber} ${outcome.ending}`); },
    };
    const result = await playPipes(bot, stream);
    assert.deepEqual(result, { points: [0, 1], wins: [0, 1], winners: [1], reason: "seat 1 won the match (0-1)" });
    assert.deepEqual(seen, ["over 0 stock-emptied"]);
    const [hello, action, ...rest] = written();
    assert.deepEqual(rest, []);
    assert.equal(hello?.hello?.name, "test-bot");
    assert.equal(hello?.hello?.version, "1.2.3");
    assert.equal(hello?.hello?.token, "");
    assert.equal(hello?.hello?.protocolVersion, 1);
    assert.equal(action?.action?.decisionId, "9007199254740993");
    assert.equal(action?.action?.move?.source, "SOURCE_STOCK");
    assert.equal(action?.action?.debug, "stock first");
  });

  it("reports a Refusal frame as the RefereeError its code means", async () => {
    const { stream, written } = pipes(frame({ refusal: { code: "UNAUTHENTICATED",
      message: "unknown or expired seat token" } }));
    await assert.rejects(playPipes({ name: "b", decide: () => 0 }, stream, "tok"), (error: unknown) => {
      assert.ok(error instanceof RefereeError);
      assert.equal(error.message, "the referee refused the seat token (check SPITE_TOKEN / SPITE_TOKEN_FILE) "
        + "(UNAUTHENTICATED: unknown or expired seat token)");
      return true;
    });
    assert.equal(written()[0]?.hello?.token, "tok");
  });

  it("rejects when the referee's stream ends before MatchOver", async () => {
    await assert.rejects(playPipes({ name: "b", decide: () => 0 }, pipes(frame(ONE_DECISION[0] ?? {})).stream),
      /closed the bot's stdin before the match was over/);
  });
});

/** A real bot process on runBot, its stdin `data`, its environment `SPITE_STDIO=stdio`. */
function runOnPipes(data: Buffer, stdio = "protobuf", decide = "() => 0"):
    Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  const sdk = path.resolve(__dirname, "..", "src", "index.js");
  const source = `require(${JSON.stringify(sdk)}).runBot({ name: "child", decide: ${decide} });`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["-e", source],
      { env: { PATH: process.env["PATH"] ?? "", SPITE_STDIO: stdio } });
    const stdout: Buffer[] = [];
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => { stdout.push(chunk); });
    child.stderr.on("data", (chunk: Buffer) => { stderr += chunk.toString(); });
    child.on("close", (code) => resolve({ code, stdout: Buffer.concat(stdout), stderr }));
    child.stdin.on("error", () => {});  // a bot that stopped early closes its stdin
    child.stdin.end(data);
  });
}

describe("runBot on the referee's pipes", () => {
  for (const [what, data, words] of HOSTILE) {
    it(`exits 1 with one line for ${what}`, async () => {
      const { code, stdout, stderr } = await runOnPipes(data);
      const lines = stderr.trim().split("\n");
      assert.equal(code, 1, stderr);
      assert.equal(lines.length, 1, stderr);
      assert.ok(lines[0]?.startsWith("child: the referee's frames are unreadable: "), stderr);
      assert.ok(lines[0]?.includes(words), stderr);
      assert.deepEqual(botMessages(stdout).map((m) => m.hello?.name), ["child"], "the Hello frame and nothing else");
    });
  }

  it("plays a match, its console.log going to stderr instead of between the frames", async () => {
    const { code, stdout, stderr } = await runOnPipes(Buffer.concat(ONE_DECISION.map(frame)), "protobuf",
      "(o) => { console.log('thinking'); return o.legalMoves[0]; }");
    assert.equal(code, 0, stderr);
    assert.equal(stderr, "thinking\n");
    assert.deepEqual(botMessages(stdout).map((m) => m.body), ["hello", "action"]);
  });

  it("exits 2 with one line for JSON lines, which this SDK does not speak", async () => {
    const { code, stderr } = await runOnPipes(Buffer.from('{"welcome": {}}\n'), "json");
    assert.equal(code, 2, stderr);
    const lines = stderr.trim().split("\n");
    assert.equal(lines.length, 1, stderr);
    assert.ok(lines[0]?.includes('stdio_format = "protobuf"'), stderr);
  });
});
