/**
 * Reference policies: pure functions from an observation to a move.
 *
 * `greedyMove` is a port of `greedy_move` in sdk/python/spite_sdk/policies.py and
 * must choose exactly what it chooses for the same observation, tie-breaks included
 * (Python's `max`/`min` keep the first of equal keys; so do the loops here).
 * tests/languages/test_typescript.py checks this on the engine's own observations.
 */

import { type Card, Move, MoveKind, type Observation, Source } from "./types";

/** Compare two keys (arrays of numbers) lexicographically, like Python tuples. */
function compareKeys(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** The first item with the smallest key (Python's `min(items, key=key)`). */
function firstMin<T>(items: readonly T[], key: (item: T) => readonly number[]): T {
  const [first, ...rest] = items;
  if (first === undefined) throw new RangeError("no items to choose from");
  let best: T = first;
  let bestKey = key(first);
  for (const item of rest) {
    const k = key(item);
    if (compareKeys(k, bestKey) < 0) {
      best = item;
      bestKey = k;
    }
  }
  return best;
}

/** The first item with the largest key (Python's `max(items, key=key)`). */
function firstMax<T>(items: readonly T[], key: (item: T) => readonly number[]): T {
  return firstMin(items, (item) => key(item).map((x) => -x));
}

/**
 * Stock first, then natural hand cards, then natural discard tops; else discard the
 * highest non-wild card (wilds only if nothing else may go) onto an empty discard pile,
 * else onto the pile whose top is closest above it; with no discard, play a wild
 * rather than pass.
 */
export function greedyMove(observation: Observation): Move {
  const moves = observation.legalMoves;
  const wild: ReadonlySet<Card> = observation.rules.wildRanks;
  const plays = moves.filter((m) => m.kind === MoveKind.PLAY);
  for (const m of plays) {
    if (m.source === Source.STOCK) return m;
  }
  for (const source of [Source.HAND, Source.DISCARD_PILE]) {
    for (const m of plays) {
      if (m.source === source && !wild.has(m.card)) return m;
    }
  }
  const discards = moves.filter((m) => m.kind === MoveKind.DISCARD);
  if (discards.length > 0) {
    const card = firstMax(discards, (m) => [wild.has(m.card) ? 0 : 1, m.card]).card;
    const piles = observation.discardPiles[observation.seat] ?? [];
    const fit = (m: Move): readonly number[] => {
      const pile = piles[m.target] ?? [];
      const top = pile[pile.length - 1];
      if (top === undefined) return [0, m.target];
      const gap = top - card;
      return [gap >= 0 ? 1 : 2, Math.abs(gap) * 10 + m.target];
    };
    return firstMin(discards.filter((m) => m.card === card), fit);
  }
  const fallback = plays[0] ?? moves[0];
  if (fallback === undefined) throw new RangeError("greedyMove: the observation has no legal moves");
  return fallback;
}
