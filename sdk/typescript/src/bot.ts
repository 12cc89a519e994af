/**
 * Playing a match: a {@link Bot} is one `decide` function and some optional hooks;
 * {@link runBot} plays one seat over the referee's `Play` stream and exits the process.
 *
 * ```text
 * bot                                     referee
 * Hello(token, name, version, 1)  ----->            (token also in `spite-token` metadata)
 *                                 <-----  Welcome               -> onWelcome
 *                                 <-----  GameStart             -> onGameStart
 *                                 <-----  EventBatch            -> onEvents
 *                                 <-----  DecisionRequest       -> decide
 * Action(decision_id, ...)        ----->
 *                                 <-----  ActionResult          -> onResult
 *                                 <-----  GameOver              -> onGameOver
 *                                 ...     (next game)
 *                                 <-----  MatchOver             -> onMatchOver
 * (half-close; the referee ends the stream; exit 0)
 * ```
 *
 * Configuration comes from the environment, never from the command line (a token in
 * argv is visible to every user of the machine):
 *
 * | variable               | meaning                                                   |
 * |------------------------|-----------------------------------------------------------|
 * | SPITE_ADDRESS          | the referee: `host:port` or `unix:/absolute/path`         |
 * | SPITE_TOKEN            | the seat's secret token, or                               |
 * | SPITE_TOKEN_FILE       | a file holding it                                         |
 * | SPITE_BOT_SEED         | a seed for the bot's own randomness ({@link botSeed})     |
 * | SPITE_LOG_LEVEL        | `debug`, `info`, `warning` (default), `error`             |
 * | SPITE_CONNECT_TIMEOUT  | seconds to wait for the referee to accept the connection (30) |
 * | SPITE_STDIO            | set by the referee for a stdio bot: `protobuf` plays on its pipes (./pipes.ts) |
 *
 * With `SPITE_ARENA` and `SPITE_BOT_KEY` set, {@link runBot} joins a hosted ladder instead
 * and plays every game it is given until stopped (./arena.ts).
 */

import { closeSync, readFileSync } from "node:fs";

import * as grpc from "@grpc/grpc-js";

import { ladderRequested, runLadder } from "./arena";
import {
  actionResultFromWire, actionToWire, describeChoice, eventFromWire, matchResultFromWire, observationFromWire,
  outcomeFromWire, welcomeFromWire,
} from "./convert";
import type { DecisionRequest__Output as DecisionRequest } from "./generated/spite/v1/DecisionRequest";
import {
  type ActionResult, type Choice, type Decision, DecisionContext, type Event, Fault, type MatchResult, Move,
  type Observation, type Outcome, type RuleSet, type Welcome,
} from "./types";
import { FRAMES_FORMAT, FrameError, PipeStream, STDIO_VARIABLE } from "./pipes";
import { type BotMessage, type RefereeClient, type RefereeMessage, spiteV1 } from "./wire";

/** The protocol version this SDK speaks. */
export const PROTOCOL_VERSION = 1;
/** Largest message either side may send. */
export const MAX_MESSAGE_BYTES = 64 * 1024;
/** Hello's name and version are cut to this many bytes. */
export const MAX_NAME_BYTES = 64;
export const TOKEN_METADATA_KEY = "spite-token";
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** After MatchOver, how long to wait for the referee to end the stream before cancelling it. */
export const DEFAULT_CLOSE_WAIT_MS = 2_000;

/** Exit statuses of {@link runBot}. */
export const ExitCode = {
  OK: 0,
  /** The referee refused or ended the stream with an error, or the bot threw. */
  FAILED: 1,
  /** No address or no token (on a ladder: a bad setting). */
  CONFIG: 2,
  /** SIGINT or SIGTERM stopped a ladder bot. */
  INTERRUPTED: 130,
} as const;

/**
 * A bot. Only `name` and `decide` are required; every hook may return a promise, which
 * the SDK awaits before it reads the next message.
 */
export interface Bot {
  /** Shown in logs and leaderboards (at most 64 bytes). */
  readonly name: string;
  /** The bot's version (at most 64 bytes). */
  readonly version?: string;

  /**
   * Choose for one decision: a {@link Move}, a plan (array of moves), an index into
   * `observation.legalMoves`, or a {@link Decision} wrapping one of those with a debug
   * string. `context` has the decision's deadline; the time until the answer is sent
   * is the bot's thinking time.
   */
  decide(observation: Observation, context: DecisionContext): Choice | Decision | Promise<Choice | Decision>;

  /** The referee accepted the bot: its seat, the rules, the time control. */
  onWelcome?(welcome: Welcome): void | Promise<void>;
  /** A game begins; `observation` is the opening view (no legal moves yet). */
  onGameStart?(gameNumber: number, observation: Observation): void | Promise<void>;
  /** Events the referee sent between decisions (the same events also arrive in the next `observation.events`). */
  onEvents?(events: readonly Event[], gameNumber: number): void | Promise<void>;
  /** The referee's verdict on an action. Without this hook, rejected actions are reported on stderr. */
  onResult?(result: ActionResult): void | Promise<void>;
  /** A game ended. */
  onGameOver?(gameNumber: number, outcome: Outcome): void | Promise<void>;
  /** The match ended; {@link playMatch} resolves after this. */
  onMatchOver?(result: MatchResult): void | Promise<void>;
}

/** The bot cannot start: no address or no token. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** What each status the referee ends a stream with means for the bot's author (referee.proto, rpc Play). */
const STATUS_MEANINGS: ReadonlyMap<grpc.status, string> = new Map([
  [grpc.status.UNAUTHENTICATED, "the referee refused the seat token (check SPITE_TOKEN / SPITE_TOKEN_FILE)"],
  [grpc.status.ALREADY_EXISTS, "the referee already has a bot on this seat (is a second copy running?)"],
  [grpc.status.FAILED_PRECONDITION, `the referee does not speak protocol version ${PROTOCOL_VERSION} `
    + "or refused the seat now"],
  [grpc.status.INVALID_ARGUMENT, "the referee rejected a message from this bot as malformed"],
  [grpc.status.RESOURCE_EXHAUSTED, `a message exceeded the ${MAX_MESSAGE_BYTES / 1024} KiB limit`],
  [grpc.status.UNAVAILABLE, "the referee is unavailable (not running, or it went away)"],
  [grpc.status.CANCELLED, "the stream was cancelled (the referee stopped the match or shut down)"],
  [grpc.status.DEADLINE_EXCEEDED, "the referee's deadline passed"],
  [grpc.status.UNIMPLEMENTED, "the server at this address is not a Spite Arena referee"],
]);

/** The referee refused the stream or ended it before the match was over. */
export class RefereeError extends Error {
  override name = "RefereeError";

  constructor(
    message: string,
    /** The gRPC status code, when the referee ended the stream with one. */
    readonly code: grpc.status | null = null,
    /** The status details the referee sent. */
    readonly details: string = "",
  ) {
    super(code === null ? message : `${message} (${grpc.status[code]}: ${details || "no details"})`);
  }

  /** The error for a stream that ended with status `code`. */
  static fromStatus(code: grpc.status, details: string): RefereeError {
    return new RefereeError(STATUS_MEANINGS.get(code) ?? "the referee ended the stream with an error", code, details);
  }

  /** The status code's name, e.g. `"UNAUTHENTICATED"`, or null. */
  get codeName(): string | null {
    return this.code === null ? null : grpc.status[this.code] ?? String(this.code);
  }
}

/** Where and how to connect. */
export interface PlayOptions {
  /** `host:port` or `unix:/absolute/path`. */
  readonly address: string;
  /** The seat's secret token. */
  readonly token: string;
  /** How long to wait for the referee to accept the connection (default 30 s). */
  readonly connectTimeoutMs?: number;
  /** After MatchOver, how long to wait for the referee to end the stream before cancelling it (default 2 s). */
  readonly closeWaitMs?: number;
}

/** The seat token from `SPITE_TOKEN`, else from the file named by `SPITE_TOKEN_FILE`. */
export function readToken(env: NodeJS.ProcessEnv = process.env): string {
  const token = env["SPITE_TOKEN"]?.trim();
  if (token) return token;
  const file = env["SPITE_TOKEN_FILE"]?.trim();
  if (!file) {
    throw new ConfigError("no seat token: set SPITE_TOKEN, or SPITE_TOKEN_FILE to a file holding it "
      + "(the referee or `spite play` does this for the bots it starts)");
  }
  let text: string;
  try {
    text = readFileSync(file, "utf8").trim();
  } catch (error) {
    throw new ConfigError(`cannot read the seat token from SPITE_TOKEN_FILE=${file}: ${(error as Error).message}`);
  }
  const inherited = /^\/dev\/fd\/(\d+)$/.exec(file);
  if (inherited) {  // the referee's pipe, holding the token once: closed once read
    try { closeSync(Number(inherited[1])); } catch { /* already closed */ }
  }
  if (!text) throw new ConfigError(`the token file ${file} is empty`);
  return text;
}

/** Address, token and connect timeout from the environment (see the module comment). */
export function readConfig(env: NodeJS.ProcessEnv = process.env): PlayOptions {
  const address = env["SPITE_ADDRESS"]?.trim();
  if (!address) throw new ConfigError("no referee address: set SPITE_ADDRESS (host:port or unix:/path)");
  const timeoutText = env["SPITE_CONNECT_TIMEOUT"]?.trim();
  let connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS;
  if (timeoutText) {
    const seconds = Number(timeoutText);
    if (!Number.isFinite(seconds) || seconds <= 0) {
      throw new ConfigError(`SPITE_CONNECT_TIMEOUT must be a positive number of seconds, got ${timeoutText}`);
    }
    connectTimeoutMs = seconds * 1000;
  }
  return { address, token: readToken(env), connectTimeoutMs };
}

/** `SPITE_BOT_SEED` as a bigint (0 when unset), for seeding the bot's own randomness. */
export function botSeed(env: NodeJS.ProcessEnv = process.env): bigint {
  const text = env["SPITE_BOT_SEED"]?.trim();
  if (!text) return 0n;
  try {
    return BigInt(text);
  } catch {
    throw new ConfigError(`SPITE_BOT_SEED must be an integer, got ${text}`);
  }
}

/** The channel options bots use: 64 KiB messages both ways, keepalive pings, no proxy for a local referee. */
export function channelOptions(address: string): grpc.ChannelOptions {
  const options: grpc.ChannelOptions = {
    "grpc.max_send_message_length": MAX_MESSAGE_BYTES,
    "grpc.max_receive_message_length": MAX_MESSAGE_BYTES,
    // A referee that vanished (dead host, cut connection) must end the bot, not hang it.
    "grpc.keepalive_time_ms": 30_000,
    "grpc.keepalive_timeout_ms": 10_000,
    "grpc.primary_user_agent": "spite-sdk-typescript",
  };
  const local = address.startsWith("unix:")
    || /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.test(address);
  if (local) options["grpc.enable_http_proxy"] = 0;
  return options;
}

type Level = "debug" | "info" | "warning" | "error";
const LEVELS: readonly Level[] = ["debug", "info", "warning", "error"];

function logLevel(): number {
  const text = (process.env["SPITE_LOG_LEVEL"] ?? "").trim().toLowerCase();
  const index = LEVELS.indexOf((text === "warn" ? "warning" : text) as Level);
  return index < 0 ? LEVELS.indexOf("warning") : index;
}

class Logger {
  private readonly threshold = logLevel();

  constructor(private readonly name: string) {}

  enabled(level: Level): boolean {
    return LEVELS.indexOf(level) >= this.threshold;
  }

  log(level: Level, message: string): void {
    if (this.enabled(level)) process.stderr.write(`${this.name}: ${message}\n`);
  }
}

function cutName(text: string): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= MAX_NAME_BYTES) return text;
  let end = MAX_NAME_BYTES;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString("utf8");
}

function waitForReady(client: grpc.Client, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    client.waitForReady(Date.now() + timeoutMs, (error) => (error ? reject(error) : resolve()));
  });
}

function isServiceError(error: unknown): error is grpc.ServiceError {
  return typeof error === "object" && error !== null && "code" in error && "details" in error
    && "metadata" in error;
}

function reportRejection(name: string, result: ActionResult): void {
  if (result.fault === Fault.NONE) return;
  const strikes = result.strikes ? ` (strikes: ${result.strikes})` : "";
  const played = result.applied.length
    ? `; the referee played ${result.applied.map(Move.format).join(", ")} instead` : "";
  process.stderr.write(`${name}: decision ${result.decisionId} rejected: ${result.fault}: ${result.error}`
    + `${strikes}${played}\n`);
}

/**
 * Play one match: connect to the referee, play every decision, and resolve with the
 * match's result once the referee has sent MatchOver and ended the stream. Rejects with
 * a {@link RefereeError} when the referee refuses or ends the stream early, and with
 * whatever `decide` or a hook threw. For embedding (tests, tools); a bot process uses
 * {@link runBot}.
 */
export async function playMatch(bot: Bot, options: PlayOptions): Promise<MatchResult> {
  const { address, token } = options;
  const Referee = spiteV1().Referee;
  const client = new Referee(address, grpc.credentials.createInsecure(), channelOptions(address));
  try {
    const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    try {
      await waitForReady(client, connectTimeoutMs);
    } catch {
      throw new RefereeError(`cannot reach the referee at ${address} `
        + `(waited ${connectTimeoutMs / 1000} s; is it running?)`);
    }
    return await session(bot, client, token, options.closeWaitMs ?? DEFAULT_CLOSE_WAIT_MS);
  } finally {
    client.close();
  }
}

/** Where a session's messages go: a gRPC Play call, or the referee's pipes ({@link PipeStream}). */
interface Outbound {
  write(message: BotMessage): void;
  /** Half-close: the bot has nothing more to say. */
  end(): void;
  /** Give up on a referee that lingers after MatchOver. */
  cancel(): void;
}

/** One Play stream: translates each referee message into the bot's calls, and each choice into an Action. */
class Session {
  private rules: RuleSet | null = null;
  private closeTimer: NodeJS.Timeout | undefined;
  /** The match's result, once MatchOver has arrived. */
  result: MatchResult | null = null;

  constructor(
    private readonly bot: Bot,
    private readonly call: Outbound,
    private readonly log: Logger,
    private readonly closeWaitMs: number,
  ) {}

  hello(token: string): void {
    const { bot } = this;
    this.call.write({
      hello: {
        token, name: cutName(bot.name), version: cutName(bot.version ?? "0"), protocolVersion: PROTOCOL_VERSION,
      },
    });
  }

  dispose(): void {
    clearTimeout(this.closeTimer);
  }

  private requireRules(what: string): RuleSet {
    if (this.rules === null) throw new RefereeError(`protocol error: ${what} came before Welcome`);
    return this.rules;
  }

  async handle(message: RefereeMessage): Promise<void> {
    const { bot, log } = this;
    switch (message.body) {
      case "decision":
        if (message.decision) await this.decide(message.decision);
        return;
      case "events":
        if (message.events && bot.onEvents) {
          await bot.onEvents(message.events.events.map(eventFromWire), message.events.gameNumber);
        }
        return;
      case "result": {
        if (!message.result) return;
        const verdict = actionResultFromWire(message.result);
        if (bot.onResult) await bot.onResult(verdict);
        else reportRejection(bot.name, verdict);
        return;
      }
      case "gameStart": {
        const start = message.gameStart;
        if (!start) return;
        const rules = this.requireRules("GameStart");
        log.log("info", `game ${start.gameNumber} starts, seat ${start.firstSeat} moves first`);
        if (bot.onGameStart) await bot.onGameStart(start.gameNumber, observationFromWire(start.observation, rules));
        return;
      }
      case "gameOver": {
        const over = message.gameOver;
        if (!over) return;
        const outcome = outcomeFromWire(over.outcome);
        log.log("info", `game ${over.gameNumber} over: ${outcome.reason}`);
        if (bot.onGameOver) await bot.onGameOver(over.gameNumber, outcome);
        return;
      }
      case "welcome": {
        if (!message.welcome) return;
        const welcome = welcomeFromWire(message.welcome);
        if (welcome.protocolVersion !== 0 && welcome.protocolVersion !== PROTOCOL_VERSION) {
          log.log("warning", `the referee speaks protocol ${welcome.protocolVersion}, this SDK ${PROTOCOL_VERSION}`);
        }
        this.rules = welcome.rules;
        log.log("info", `seat ${welcome.seat} of match ${welcome.matchId}: ${welcome.rules.name}, `
          + `${welcome.games} game(s)`);
        if (bot.onWelcome) await bot.onWelcome(welcome);
        return;
      }
      case "matchOver": {
        if (!message.matchOver) return;
        const result = matchResultFromWire(message.matchOver);
        this.result = result;
        log.log("info", `match over: ${result.reason}`);
        if (bot.onMatchOver) await bot.onMatchOver(result);
        // Half-close and let the referee end the stream; cancel it if the referee lingers.
        this.call.end();
        this.closeTimer = setTimeout(() => this.call.cancel(), this.closeWaitMs);
        return;
      }
      case "refusal": {
        // stdio's way of refusing; a gRPC referee ends the stream with the status instead.
        const code = message.refusal?.code ?? "";
        const details = message.refusal?.message ?? "";
        const status = (grpc.status as unknown as Record<string, grpc.status | undefined>)[code];
        throw status === undefined
          ? new RefereeError(`the referee refused the session: ${code} ${details}`)
          : RefereeError.fromStatus(status, details);
      }
      default:
        log.log("debug", "ignoring a message this SDK does not know (a newer referee?)");
    }
  }

  private async decide(request: DecisionRequest): Promise<void> {
    const received = performance.now();
    const rules = this.requireRules("a DecisionRequest");
    const context = new DecisionContext(BigInt(request.decisionId), request.gameNumber, received,
      request.deadlineMs, request.bankMs);
    const observation = observationFromWire(request.observation, rules);
    const choice = await this.bot.decide(observation, context);
    this.call.write({ action: actionToWire(request.decisionId, choice, observation.legalMoves) });
    const elapsed = performance.now() - received;
    if (elapsed > request.deadlineMs) {
      this.log.log("warning", `decision ${request.decisionId} took ${elapsed.toFixed(0)} ms, over its `
        + `${request.deadlineMs} ms (the time bank pays the rest: ${request.bankMs} ms left before)`);
    }
    if (this.log.enabled("debug")) {
      this.log.log("debug", `decision ${request.decisionId}: ${describeChoice(choice, observation.legalMoves)}`
        + ` in ${elapsed.toFixed(2)} ms`);
    }
  }
}

async function session(bot: Bot, client: RefereeClient, token: string, closeWaitMs: number): Promise<MatchResult> {
  const metadata = new grpc.Metadata();
  metadata.set(TOKEN_METADATA_KEY, token);
  const call = client.Play(metadata);
  let status: grpc.StatusObject | null = null;
  call.on("status", (s: grpc.StatusObject) => {
    status = s;
  });
  const play = new Session(bot, call, new Logger(bot.name), closeWaitMs);
  play.hello(token);
  try {
    for await (const message of call as AsyncIterable<RefereeMessage>) await play.handle(message);
  } catch (error) {
    // Once MatchOver has arrived the match is played: however the stream then ends, that is a clean finish.
    if (play.result !== null && isServiceError(error)) return play.result;
    call.cancel();
    if (isServiceError(error)) throw RefereeError.fromStatus(error.code, error.details);
    throw error;
  } finally {
    play.dispose();
  }
  if (play.result !== null) return play.result;
  const final = status as grpc.StatusObject | null;
  if (final !== null && final.code !== grpc.status.OK) throw RefereeError.fromStatus(final.code, final.details);
  throw new RefereeError("the referee closed the stream before the match was over");
}

/**
 * Play one match on protobuf frames ({@link PipeStream}): the Hello (with `token`, which may
 * be empty: the pipes say which seat this is), then every decision until MatchOver. Rejects
 * like {@link playMatch}, and with a {@link FrameError} for a stream that cannot be read.
 * For embedding (tests, tools); a bot process uses {@link runBot}, which plays on stdin and
 * stdout when `SPITE_STDIO=protobuf`.
 */
export async function playPipes(bot: Bot, stream: PipeStream, token = ""): Promise<MatchResult> {
  // After MatchOver the session returns at once: the referee closes the pipes.
  const outbound: Outbound = { write: (message) => stream.send(message), end: () => stream.close(), cancel: () => {} };
  const play = new Session(bot, outbound, new Logger(bot.name), 0);
  try {
    play.hello(token);
    for (let message = stream.receive(); message !== null; message = stream.receive()) {
      await play.handle(message);
      if (play.result !== null) return play.result;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EPIPE") {
      throw new RefereeError("the referee stopped reading the bot's stdout (its session is over)");
    }
    throw error;
  } finally {
    play.dispose();
  }
  throw new RefereeError("the referee closed the bot's stdin before the match was over");
}

/** Exit after a match: 0, or 1 with one line on stderr (and the stack of an error in the bot's own code). */
function exitAfter(bot: Bot, match: Promise<MatchResult>): void {
  match.then(
    () => process.exit(ExitCode.OK),
    (error: unknown) => {
      if (error instanceof RefereeError || error instanceof FrameError) {
        process.stderr.write(`${bot.name}: ${error.message}\n`);
      } else {
        process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
        process.stderr.write(`${bot.name}: the bot threw and stopped (the referee counts this as a crash)\n`);
      }
      process.exit(ExitCode.FAILED);
    },
  );
}

/** {@link runBot} on the referee's pipes (`SPITE_STDIO` set): frames, or exit 2 for any other format. */
function runPipes(bot: Bot, stdioFormat: string): void {
  if (stdioFormat !== FRAMES_FORMAT) {
    process.stderr.write(`${bot.name}: ${STDIO_VARIABLE}=${stdioFormat}: this SDK speaks the referee's pipes only `
      + 'as protobuf frames: set stdio_format = "protobuf" in bot.toml (or transport = "grpc")\n');
    process.exit(ExitCode.CONFIG);
  }
  let token = "";
  try {
    if (process.env["SPITE_TOKEN"]?.trim() || process.env["SPITE_TOKEN_FILE"]?.trim()) token = readToken();
  } catch (error) {
    process.stderr.write(`${bot.name}: ${(error as Error).message}\n`);
    process.exit(ExitCode.CONFIG);
  }
  exitAfter(bot, playPipes(bot, PipeStream.fromStdio(), token));
}

/**
 * Play one match as a bot process and exit: the address and token come from the
 * environment (see the module comment). Exits 0 after MatchOver; on failure prints one
 * line (with the gRPC status code and details, if any) to stderr and exits 1, or 2
 * when the address or token is missing. Started by the referee on its pipes
 * (`SPITE_STDIO=protobuf`: the manifest says `transport = "stdio"`, `stdio_format =
 * "protobuf"`) it plays there ({@link playPipes}). With `SPITE_ARENA` and `SPITE_BOT_KEY`
 * set it joins that ladder instead and plays until stopped ({@link runLadder}).
 */
export function runBot(bot: Bot): void {
  const stdioFormat = process.env[STDIO_VARIABLE]?.trim();
  if (stdioFormat) {
    runPipes(bot, stdioFormat);
    return;
  }
  if (ladderRequested()) {
    runLadder(bot);
    return;
  }
  let options: PlayOptions;
  try {
    options = readConfig();
  } catch (error) {
    process.stderr.write(`${bot.name}: ${(error as Error).message}\n`);
    process.exit(ExitCode.CONFIG);
  }
  exitAfter(bot, playMatch(bot, options));
}
