/**
 * The session against a scripted referee: a real grpc-js server (port 0, or a Unix
 * socket) speaking the Play protocol from the same proto, and real bot processes for
 * runBot's exit statuses.
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { after, describe, it } from "node:test";

import * as grpc from "@grpc/grpc-js";

import {
  type Bot, ConfigError, type DecisionContext, Ending, Fault, Move, type Observation, playMatch, readConfig,
  RefereeError, spiteV1,
} from "../src";
import type { BotMessage__Output } from "../src/generated/spite/v1/BotMessage";
import type { Observation as WireObservation } from "../src/generated/spite/v1/Observation";
import type { RefereeMessage } from "../src/generated/spite/v1/RefereeMessage";

type PlayCall = grpc.ServerDuplexStream<BotMessage__Output, RefereeMessage>;
type Script = (call: PlayCall, next: () => Promise<BotMessage__Output | undefined>) => Promise<void>;

const scratch = mkdtempSync(path.join(tmpdir(), "spite-sdk-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Serve `script` for every Play call; resolves with the address to dial and a stop function. */
async function referee(script: Script, listen = "127.0.0.1:0"): Promise<{ address: string; stop: () => void }> {
  const server = new grpc.Server();
  server.addService(spiteV1().Referee.service, {
    Play(call: PlayCall) {
      // Not the stream's async iterator: it destroys the call when the bot half-closes,
      // and a destroyed call can no longer send its status.
      const inbox: (BotMessage__Output | undefined)[] = [];
      const waiting: ((message: BotMessage__Output | undefined) => void)[] = [];
      const deliver = (message: BotMessage__Output | undefined): void => {
        const waiter = waiting.shift();
        if (waiter) waiter(message);
        else inbox.push(message);
      };
      call.on("data", deliver);
      call.on("end", () => deliver(undefined));
      call.on("error", () => deliver(undefined));
      const next = (): Promise<BotMessage__Output | undefined> => (
        inbox.length > 0 ? Promise.resolve(inbox.shift()) : new Promise((resolve) => waiting.push(resolve)));
      script(call, next).catch((error: unknown) => {
        call.emit("error", { code: grpc.status.INTERNAL, details: `script failed: ${String(error)}` });
      });
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(listen, grpc.ServerCredentials.createInsecure(), (error, bound) => (
      error ? reject(error) : resolve(bound)));
  });
  const address = listen.startsWith("unix:") ? listen : `127.0.0.1:${port}`;
  return { address, stop: () => server.forceShutdown() };
}

const RULES = {
  name: "standard", version: 1, players: 2, partners: false, deck: "spite", decks: 2, jokersPerDeck: 2,
  kingsWild: true, stockSize: 20, handSize: 5, centrePiles: 4, discardPiles: 4, openStock: 1, turnCap: 1000,
  wildRanks: [0, 13], completedPiles: "shuffle", drawPileExhausted: "play-on", scoring: "win",
};

const OBSERVATION: WireObservation = {
  seat: 1, turn: 2, toMove: 1, hand: [3, 7, 9], handSizes: [5, 3],
  stocks: [{ count: 20, visible: [4] }, { count: 20, visible: [1] }],
  discardPiles: [{ piles: [{}, {}, {}, {}] }, { piles: [{}, {}, {}, {}] }],
  centrePiles: [{}, {}, {}, {}], drawPileCount: 80,
  legalMoves: [
    { kind: "MOVE_KIND_PLAY", source: "SOURCE_STOCK", card: 1, target: 0 },
    { kind: "MOVE_KIND_DISCARD", source: "SOURCE_HAND", card: 9, target: 0 },
  ],
};

const HELLO_SEEN: { metadataToken?: string | undefined; hello?: BotMessage__Output["hello"] } = {};

/** One game of one decision, checked on the referee's side; then MatchOver and a clean end. */
const ONE_DECISION: Script = async (call, next) => {
  const first = await next();
  HELLO_SEEN.metadataToken = call.metadata.get("spite-token")[0]?.toString();
  HELLO_SEEN.hello = first?.hello;
  call.write({ welcome: { seat: 1, rules: RULES, timeControl: { decisionMs: 900, bankMs: 5000, connectMs: 8000 },
    games: 1, matchId: "m1", protocolVersion: 1, seatNames: ["other", "test"], policy: "POLICY_FORFEIT" } });
  call.write({ gameStart: { gameNumber: 0, firstSeat: 0, observation: { ...OBSERVATION, legalMoves: [] } } });
  call.write({ events: { gameNumber: 0, events: [{ kind: "EVENT_KIND_TURN", seat: 1, count: 2, pile: -1 }] } });
  call.write({ decision: { decisionId: "9007199254740993", gameNumber: 0, observation: OBSERVATION, deadlineMs: 900,
    bankMs: 5000 } });
  const answer = await next();
  const action = answer?.action;
  if (action?.decisionId !== "9007199254740993" || action.choice !== "move" || action.move?.card !== 1
    || action.move.source !== "SOURCE_STOCK" || action.debug !== "stock first") {
    throw new Error(`unexpected action ${JSON.stringify(answer)}`);
  }
  call.write({ result: { decisionId: action.decisionId, applied: [action.move] } });
  call.write({ gameOver: { gameNumber: 0, outcome: { ending: "ENDING_STOCK_EMPTIED", winners: [1], scores: [0, 1],
    reason: "seat 1 emptied its stock", offender: -1 } } });
  call.write({ matchOver: { points: [0, 1], wins: [0, 1], winners: [1], reason: "seat 1 won the match (0-1)" } });
  // The bot half-closes after MatchOver; the referee then ends the stream with OK.
  if ((await next()) !== undefined) throw new Error("the bot sent something after MatchOver");
  call.end();
};

class RecordingBot implements Bot {
  readonly name = "test-bot";
  readonly version = "1.2.3";
  readonly seen: string[] = [];
  context: DecisionContext | undefined;

  async decide(observation: Observation, context: DecisionContext) {
    this.context = context;
    this.seen.push(`decide ${observation.legalMoves.map(Move.format).join(" ")}`);
    await new Promise((resolve) => setTimeout(resolve, 5)); // an async decide is awaited
    return { choice: observation.legalMoves[0] ?? Move.PASS, debug: "stock first" };
  }

  onWelcome(welcome: { seat: number; rules: { name: string } }) {
    this.seen.push(`welcome ${welcome.seat} ${welcome.rules.name}`);
  }

  onGameStart(gameNumber: number, observation: Observation) {
    this.seen.push(`start ${gameNumber} hand ${observation.hand.join(",")}`);
  }

  onEvents(events: readonly { kind: string }[]) {
    this.seen.push(`events ${events.map((e) => e.kind).join(",")}`);
  }

  onResult(result: { fault: string; applied: readonly Move[] }) {
    this.seen.push(`result ${result.fault} ${result.applied.map(Move.format).join(" ")}`);
  }

  onGameOver(gameNumber: number, outcome: { ending: string }) {
    this.seen.push(`over ${gameNumber} ${outcome.ending}`);
  }

  onMatchOver(result: { winners: readonly number[] }) {
    this.seen.push(`match over ${result.winners.join(",")}`);
  }
}

describe("playMatch", () => {
  for (const transport of ["tcp", "unix"]) {
    it(`plays a match over ${transport}, calling each hook in order`, async () => {
      const listen = transport === "unix" ? `unix:${path.join(scratch, "referee.sock")}` : undefined;
      const server = await referee(ONE_DECISION, listen);
      try {
        const bot = new RecordingBot();
        const result = await playMatch(bot, { address: server.address, token: "secret", connectTimeoutMs: 5000 });
        assert.deepEqual(result, { points: [0, 1], wins: [0, 1], winners: [1], reason: "seat 1 won the match (0-1)" });
        assert.deepEqual(bot.seen, [
          "welcome 1 standard", "start 0 hand 3,7,9", "events turn", "decide S:A>C0 H:9>D0",
          `result ${Fault.NONE} S:A>C0`, `over 0 ${Ending.STOCK_EMPTIED}`, "match over 1",
        ]);
        assert.equal(bot.context?.decisionId, 9007199254740993n);
        assert.equal(bot.context?.deadlineMs, 900);
        assert.ok(Math.abs((bot.context?.finalDeadline ?? 0) - (bot.context?.received ?? 0) - 5900) < 1e-6);
        assert.equal(HELLO_SEEN.metadataToken, "secret");
        assert.equal(HELLO_SEEN.hello?.token, "secret");
        assert.equal(HELLO_SEEN.hello?.name, "test-bot");
        assert.equal(HELLO_SEEN.hello?.version, "1.2.3");
        assert.equal(HELLO_SEEN.hello?.protocolVersion, 1);
      } finally {
        server.stop();
      }
    });
  }

  it("rejects with the status the referee ends the stream with", async () => {
    const server = await referee(async (call, next) => {
      await next();
      call.emit("error", { code: grpc.status.UNAUTHENTICATED, details: "unknown or expired seat token" });
    });
    try {
      const failure = playMatch({ name: "b", decide: () => 0 }, { address: server.address, token: "wrong" });
      await assert.rejects(failure, (error: unknown) => {
        assert.ok(error instanceof RefereeError);
        assert.equal(error.code, grpc.status.UNAUTHENTICATED);
        assert.equal(error.codeName, "UNAUTHENTICATED");
        assert.equal(error.details, "unknown or expired seat token");
        assert.match(error.message, /seat token.*UNAUTHENTICATED: unknown or expired seat token/);
        return true;
      });
    } finally {
      server.stop();
    }
  });

  it("rejects when the stream ends before MatchOver", async () => {
    const server = await referee(async (call, next) => {
      await next();
      call.end();
    });
    try {
      await assert.rejects(playMatch({ name: "b", decide: () => 0 }, { address: server.address, token: "t" }),
        /closed the stream before the match was over/);
    } finally {
      server.stop();
    }
  });

  it("resolves when the referee keeps the stream open after MatchOver", async () => {
    const server = await referee(async (call, next) => {
      await next();
      call.write({ matchOver: { points: [1, 0], wins: [1, 0], winners: [0], reason: "seat 0 won" } });
      await next(); // the bot's half-close; then the stream is left open
    });
    try {
      const result = await playMatch({ name: "b", decide: () => 0 },
        { address: server.address, token: "t", closeWaitMs: 100 });
      assert.equal(result.reason, "seat 0 won");
    } finally {
      server.stop();
    }
  });

  it("rejects when no referee answers in time", async () => {
    const nowhere = `unix:${path.join(scratch, "nobody.sock")}`;
    const options = { address: nowhere, token: "t", connectTimeoutMs: 300 };
    await assert.rejects(playMatch({ name: "b", decide: () => 0 }, options), /cannot reach the referee/);
  });

  it("passes on what decide throws, after cancelling the stream", async () => {
    const server = await referee(async (call, next) => {
      await next();
      call.write({ welcome: { seat: 0, rules: RULES } });
      call.write({ decision: { decisionId: "1", observation: OBSERVATION, deadlineMs: 100 } });
      await next();
    });
    try {
      const bot: Bot = { name: "b", decide: () => { throw new Error("bug in the bot"); } };
      await assert.rejects(playMatch(bot, { address: server.address, token: "t" }), /bug in the bot/);
    } finally {
      server.stop();
    }
  });
});

describe("configuration", () => {
  it("reads the address and the token, or the token's file", () => {
    assert.deepEqual(readConfig({ SPITE_ADDRESS: "unix:/tmp/r.sock", SPITE_TOKEN: " tok " }),
      { address: "unix:/tmp/r.sock", token: "tok", connectTimeoutMs: 30_000 });
    const file = path.join(scratch, "token");
    writeFileSync(file, "from-file\n");
    assert.equal(readConfig({ SPITE_ADDRESS: "h:1", SPITE_TOKEN_FILE: file, SPITE_CONNECT_TIMEOUT: "2.5" }).token,
      "from-file");
    assert.equal(readConfig({ SPITE_ADDRESS: "h:1", SPITE_TOKEN: "t", SPITE_CONNECT_TIMEOUT: "2.5" }).connectTimeoutMs,
      2500);
  });

  it("says what is missing", () => {
    assert.throws(() => readConfig({ SPITE_TOKEN: "t" }), ConfigError);
    assert.throws(() => readConfig({ SPITE_ADDRESS: "h:1" }), /SPITE_TOKEN/);
    assert.throws(() => readConfig({ SPITE_ADDRESS: "h:1", SPITE_TOKEN_FILE: path.join(scratch, "none") }),
      /cannot read the seat token/);
    assert.throws(() => readConfig({ SPITE_ADDRESS: "h:1", SPITE_TOKEN: "t", SPITE_CONNECT_TIMEOUT: "soon" }),
      ConfigError);
  });
});

/** Run a bot process (index.js's runBot with a first-legal-move bot) and collect its exit. */
function runBotProcess(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const sdk = path.resolve(__dirname, "..", "src", "index.js");
  const source = `require(${JSON.stringify(sdk)}).runBot({ name: "child", decide: () => 0 });`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["-e", source], { env: { PATH: process.env["PATH"] ?? "", ...env } });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => { stderr += chunk.toString(); });
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

describe("runBot (a real bot process)", () => {
  it("exits 0 after MatchOver", async () => {
    const server = await referee(ONE_DECISION_ANY);
    try {
      const { code, stderr } = await runBotProcess({ SPITE_ADDRESS: server.address, SPITE_TOKEN: "t" });
      assert.equal(stderr, "");
      assert.equal(code, 0);
    } finally {
      server.stop();
    }
  });

  it("prints the status code and details and exits 1 when refused", async () => {
    const server = await referee(async (call, next) => {
      await next();
      call.emit("error", { code: grpc.status.ALREADY_EXISTS, details: "seat 0 of this match is already connected" });
    });
    try {
      const { code, stderr } = await runBotProcess({ SPITE_ADDRESS: server.address, SPITE_TOKEN: "t" });
      assert.equal(code, 1);
      assert.match(stderr, /ALREADY_EXISTS: seat 0 of this match is already connected/);
    } finally {
      server.stop();
    }
  });

  it("exits 2 without a token", async () => {
    const { code, stderr } = await runBotProcess({ SPITE_ADDRESS: "127.0.0.1:1" });
    assert.equal(code, 2);
    assert.match(stderr, /no seat token/);
  });
});

/** Like ONE_DECISION, but accepts any answer (the child bot answers with index 0). */
async function ONE_DECISION_ANY(call: PlayCall, next: () => Promise<BotMessage__Output | undefined>): Promise<void> {
  await next();
  call.write({ welcome: { seat: 1, rules: RULES, protocolVersion: 1 } });
  call.write({ decision: { decisionId: "5", observation: OBSERVATION, deadlineMs: 900 } });
  const answer = await next();
  if (answer?.action?.decisionId !== "5" || answer.action.choice !== "moveIndex" || answer.action.moveIndex !== 0) {
    throw new Error(`unexpected action ${JSON.stringify(answer)}`);
  }
  call.write({ matchOver: { points: [0, 0], wins: [0, 0], reason: "the match is tied (0-0)" } });
  await next();
  call.end();
}
