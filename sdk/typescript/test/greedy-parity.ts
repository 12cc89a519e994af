/**
 * For tests/languages/test_typescript.py: reads serialized RefereeMessages (base64, one
 * per line) from stdin, and for each DecisionRequest prints the index of greedyMove's
 * choice in the observation's legal moves. Welcome messages set the rule set. Decoding
 * and conversion are the ones a bot uses, so this checks the whole path from the wire.
 */

import { createInterface } from "node:readline";

import { greedyMove, observationFromWire, playCodec, type RuleSet, welcomeFromWire } from "../src";

async function main(): Promise<void> {
  const codec = playCodec();
  let rules: RuleSet | null = null;
  const out: string[] = [];
  for await (const line of createInterface({ input: process.stdin })) {
    if (!line.trim()) continue;
    const message = codec.responseDeserialize(Buffer.from(line, "base64"));
    if (message.welcome) {
      rules = welcomeFromWire(message.welcome).rules;
    } else if (message.decision) {
      if (rules === null) throw new Error("a decision before any Welcome");
      const view = observationFromWire(message.decision.observation, rules);
      out.push(String(view.legalMoves.indexOf(greedyMove(view))));
    }
  }
  process.stdout.write(out.join("\n") + "\n");
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
