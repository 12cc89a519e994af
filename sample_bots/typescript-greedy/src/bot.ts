/**
 * The greedy sample bot in TypeScript: stock first, then natural cards, then the
 * discard that blocks least (the same choices as sample_bots/greedy, in Python).
 *
 * Run by the referee (`spite play sample_bots/typescript-greedy/bot.toml greedy`) or by hand:
 *
 *     SPITE_ADDRESS=localhost:50051 SPITE_TOKEN=... node dist/bot.js
 */

import { type Bot, greedyMove, runBot } from "@spite-arena/sdk";

const bot: Bot = {
  name: "typescript-greedy",
  version: "1.0.0",
  decide: (observation) => greedyMove(observation),
};

runBot(bot);
