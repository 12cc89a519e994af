/**
 * Spite Arena's TypeScript SDK: write a bot as one function, observation in, move out.
 *
 * ```ts
 * import { runBot, greedyMove, Source, type Bot } from "@spite-arena/sdk";
 *
 * const bot: Bot = {
 *   name: "my-bot",
 *   version: "0.1.0",
 *   decide(observation) {
 *     // Stock cards first: emptying the stock wins the game.
 *     const stockPlay = observation.legalMoves.find((m) => m.source === Source.STOCK);
 *     return stockPlay ?? greedyMove(observation);
 *   },
 * };
 *
 * runBot(bot); // address and token come from SPITE_ADDRESS and SPITE_TOKEN
 * ```
 *
 * `decide` may also return a plan (an array of moves), an index into
 * `observation.legalMoves`, or `{ choice, debug }`; it may be async. See {@link Bot}.
 */

export {
  type Bot, botSeed, channelOptions, ConfigError, DEFAULT_CLOSE_WAIT_MS, DEFAULT_CONNECT_TIMEOUT_MS, ExitCode,
  MAX_MESSAGE_BYTES, playMatch, playPipes, type PlayOptions, PROTOCOL_VERSION, readConfig, readToken, RefereeError, runBot,
  TOKEN_METADATA_KEY,
} from "./bot";
export {
  BOT_KEY_METADATA_KEY, freshCopy, ladder, type LadderOptions, ladderRequested, readLadderConfig, REFUSALS, RETRY_S,
  runLadder,
} from "./arena";
export {
  actionResultFromWire, actionToWire, ConversionError, cutUtf8, describeChoice, eventFromWire, isDecision,
  MAX_DEBUG_BYTES, MAX_PLAN_MOVES, matchResultFromWire, moveFromWire, moveToWire, observationFromWire,
  outcomeFromWire, rulesFromWire, welcomeFromWire,
} from "./convert";
export { FrameError, FRAMES_FORMAT, MAX_FRAME_BYTES, PipeStream, STDIO_VARIABLE, varint } from "./pipes";
export { greedyMove } from "./policies";
export {
  ACE, type ActionResult, type Card, cardName, centreNeeds, type Choice, type Decision, DecisionContext, Ending,
  endedByRules, type Event, EventKind, Fault, JACK, JOKER, KING, type MatchResult, Move, MoveKind, myDiscardPiles,
  myStock, NotationError, type Observation, type Outcome, parseCard, Policy, QUEEN, type RuleSet, Source, stockOf,
  type StockView, teamOf, type TimeControl, type Welcome,
} from "./types";
export { LOADER_OPTIONS, playCodec, protoDir, spiteV1 } from "./wire";
