/**
 * Joining a hosted ladder (`spite serve`, docs/hosting.md) as a remote bot: bring your own
 * compute. When the environment has
 *
 * | variable               | meaning                                                       |
 * |------------------------|---------------------------------------------------------------|
 * | SPITE_ARENA            | the competition's gRPC address, `host:port`                   |
 * | SPITE_BOT_KEY          | the entrant's API key (`spite arena add-entrant` printed it)  |
 * | SPITE_ARENA_CAPACITY   | games this process plays at once (default 1, at most 64)      |
 *
 * {@link runBot} calls {@link runLadder} instead of playing one match: it joins the lobby
 * (`Arena.Join`, proto/spite/v1/arena.proto) and plays every game it is assigned over
 * `Referee.Play` at the same address, each on its own copy of the bot as it was before its
 * first game ({@link freshCopy}), until the process is stopped. When the server goes away
 * it joins again, waiting a little longer each time (1, 2, 5, then every 10 s). A refusal
 * (an unknown key, a name or version out of range, too many Joins, a benched or disabled
 * version) ends the process with one line saying why. The same behaviour as the Python
 * SDK's `spite_sdk.arena`.
 */

import * as grpc from "@grpc/grpc-js";

import { type Bot, channelOptions, ExitCode, playMatch, RefereeError } from "./bot";
import { type Assignment, spiteV1 } from "./wire";

/** The metadata key that carries the entrant's key on `Arena.Join` (it is in the request too). */
export const BOT_KEY_METADATA_KEY = "spite-bot-key";
/** Seconds to wait before joining again after the n-th failure in a row (the last repeats). */
export const RETRY_S: readonly number[] = [1, 2, 5, 10];
/** The statuses that mean the server will not take this bot: the process stops (arena.proto, rpc Join). */
export const REFUSALS: ReadonlySet<grpc.status> = new Set([
  grpc.status.UNAUTHENTICATED, grpc.status.INVALID_ARGUMENT, grpc.status.RESOURCE_EXHAUSTED,
  grpc.status.FAILED_PRECONDITION,
]);

/** Both `SPITE_ARENA` and `SPITE_BOT_KEY` are set: the bot is a remote ladder bot. */
export function ladderRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env["SPITE_ARENA"]?.trim() && env["SPITE_BOT_KEY"]?.trim());
}

/** Where to join and how many games to take, read from the environment. */
export interface LadderOptions {
  readonly address: string;
  readonly key: string;
  readonly capacity: number;
}

/** The ladder's settings, or a message saying which one is wrong. */
export function readLadderConfig(env: NodeJS.ProcessEnv = process.env): LadderOptions | string {
  const address = env["SPITE_ARENA"]?.trim() ?? "";
  const key = env["SPITE_BOT_KEY"]?.trim() ?? "";
  const text = env["SPITE_ARENA_CAPACITY"]?.trim() || "1";
  const capacity = Number(text);
  if (!/^\d+$/.test(text) || capacity < 1 || capacity > 64) {
    return "SPITE_ARENA_CAPACITY must be a whole number in 1..64";
  }
  // This SDK has no TLS: sending the key in plaintext where TLS was asked for would leak it.
  if (/^tls:/.test(address) || env["SPITE_TLS_CA"]?.trim() || env["SPITE_TLS"]?.trim() === "1") {
    return "the TypeScript SDK connects in plaintext only, and SPITE_ARENA (tls:) or SPITE_TLS* asks for TLS; "
      + "use the Python or Go SDK, or a TLS-terminating tunnel to the arena";
  }
  return { address, key, capacity };
}

/**
 * A deep copy of `bot` that keeps prototypes (a class instance stays one) and shares
 * functions: what each ladder game plays on, so that games at once, or one after another,
 * do not see each other's state. State the copy cannot reach is shared: variables a
 * closure captured and ES `#private` fields (a method reading one on a copy throws).
 */
export function freshCopy<T>(value: T, seen: Map<object, unknown> = new Map()): T {
  if (typeof value !== "object" || value === null) return value;
  const known = seen.get(value);
  if (known !== undefined) return known as T;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (ArrayBuffer.isView(value)) return (value as unknown as { slice(): T }).slice();
  if (value instanceof Map) {
    const copy = new Map();
    seen.set(value, copy);
    for (const [k, v] of value) copy.set(freshCopy(k, seen), freshCopy(v, seen));
    return copy as T;
  }
  if (value instanceof Set) {
    const copy = new Set();
    seen.set(value, copy);
    for (const v of value) copy.add(freshCopy(v, seen));
    return copy as T;
  }
  const copy: object = Array.isArray(value) ? [] : Object.create(Object.getPrototypeOf(value) as object | null);
  seen.set(value, copy);
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor === undefined) continue;
    if ("value" in descriptor) descriptor.value = freshCopy(descriptor.value, seen);
    Object.defineProperty(copy, key, descriptor);
  }
  return copy as T;
}

/** The status a Join stream ended with, or null when it ended without one. */
async function joinOnce(bot: Bot, options: LadderOptions, onAssignment: (assignment: Assignment) => void):
    Promise<grpc.ServiceError | null> {
  const client = new (spiteV1().Arena)(options.address, grpc.credentials.createInsecure(),
    channelOptions(options.address));
  const metadata = new grpc.Metadata();
  metadata.set(BOT_KEY_METADATA_KEY, options.key);
  const call = client.Join({ key: options.key, botName: bot.name, botVersion: bot.version ?? "0",
    capacity: options.capacity }, metadata);
  try {
    for await (const assignment of call as AsyncIterable<Assignment>) onAssignment(assignment);
    return null;
  } catch (error) {
    if (typeof error === "object" && error !== null && "code" in error) return error as grpc.ServiceError;
    throw error;
  } finally {
    call.cancel();
    client.close();
  }
}

/**
 * Play ladder games until refused; resolves with the exit status (1: the arena refused
 * the bot). The games in flight go on while the bot joins again after an error.
 */
export async function ladder(bot: Bot, options: LadderOptions): Promise<number> {
  const pristine = freshCopy(bot);
  let failures = 0;
  const play = async (assignment: Assignment): Promise<void> => {
    try {
      await playMatch(freshCopy(pristine), { address: options.address, token: assignment.token });
    } catch (error) {
      const why = error instanceof RefereeError ? error.message
        : error instanceof Error ? `the bot raised ${error.name}: ${error.message}` : `the bot threw ${String(error)}`;
      process.stderr.write(`${bot.name}: game ${assignment.matchId}: ${why}\n`);
    }
  };
  for (;;) {
    const ended = await joinOnce(bot, options, (assignment) => {
      failures = 0;
      void play(assignment);
    });
    if (ended !== null && REFUSALS.has(ended.code)) {
      process.stderr.write(`${bot.name}: the arena refused to let the bot join: ${ended.details}\n`);
      return ExitCode.FAILED;
    }
    const wait = RETRY_S[Math.min(failures, RETRY_S.length - 1)] ?? 10;
    failures += 1;
    process.stderr.write(`${bot.name}: not joined to the arena at ${options.address}; trying again in ${wait} s\n`);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
  }
}

/**
 * The ladder as a bot process: exits 1 when the arena refuses the bot, 2 for bad settings,
 * 130 on SIGINT or SIGTERM.
 */
export function runLadder(bot: Bot, env: NodeJS.ProcessEnv = process.env): void {
  const options = readLadderConfig(env);
  if (typeof options === "string") {
    process.stderr.write(`${bot.name}: ${options}\n`);
    process.exit(ExitCode.CONFIG);
  }
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(ExitCode.INTERRUPTED));
  ladder(bot, options).then((code) => process.exit(code), (error: unknown) => {
    process.stderr.write(`${bot.name}: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
    process.exit(ExitCode.FAILED);
  });
}
