package org.spitearena.sdk.policies;

import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;
import org.spitearena.sdk.Move;
import org.spitearena.sdk.MoveKind;
import org.spitearena.sdk.Observation;
import org.spitearena.sdk.Pile;
import org.spitearena.sdk.RuleSet;
import org.spitearena.sdk.Source;

/**
 * Reference policies: pure functions from an observation to a move, ported from the Python
 * SDK's {@code spite_sdk.policies}.
 *
 * <p>{@link #greedy} makes the same choice as the Python {@code greedy_move} for every
 * observation (a test checks it on positions from real games). {@link #random} and
 * {@link #naive} draw from a Java random generator, so their choices differ from the Python
 * bots' for the same seed.
 */
public final class Policies {
    private Policies() {}

    /**
     * Plays its stock first, then natural (non-wild) hand cards, then natural discard-pile tops;
     * else it discards its highest non-wild card (a wild only if nothing else may go) onto an
     * empty discard pile, else onto the pile whose top is closest above it; with no discard, it
     * plays a wild rather than pass. Ties go to the earliest legal move. {@link Move#PASS} when
     * there are no legal moves.
     */
    public static Move greedy(Observation observation) {
        List<Move> moves = observation.legalMoves();
        if (moves.isEmpty()) {
            return Move.PASS;
        }
        RuleSet rules = observation.rules();
        Move firstPlay = null;
        Move handPlay = null;
        Move pilePlay = null;
        List<Move> discards = new ArrayList<>();
        for (Move m : moves) {
            if (m.kind() == MoveKind.PLAY) {
                if (m.source() == Source.STOCK) {
                    return m;
                }
                if (firstPlay == null) {
                    firstPlay = m;
                }
                if (!rules.isWild(m.card())) {
                    if (m.source() == Source.HAND) {
                        if (handPlay == null) {
                            handPlay = m;
                        }
                    } else if (m.source() == Source.DISCARD_PILE && pilePlay == null) {
                        pilePlay = m;
                    }
                }
            } else if (m.kind() == MoveKind.DISCARD) {
                discards.add(m);
            }
        }
        if (handPlay != null) {
            return handPlay;
        }
        if (pilePlay != null) {
            return pilePlay;
        }
        if (!discards.isEmpty()) {
            // The card to discard: the highest non-wild one, else the highest wild one.
            int bestNatural = -1;
            int bestAny = -1;
            for (Move m : discards) {
                bestAny = Math.max(bestAny, m.card());
                if (!rules.isWild(m.card())) {
                    bestNatural = Math.max(bestNatural, m.card());
                }
            }
            int card = bestNatural >= 0 ? bestNatural : bestAny;
            List<Pile> piles = observation.discardPiles().get(observation.seat());
            Move choice = null;
            long choiceFit = Long.MAX_VALUE;
            for (Move m : discards) {
                if (m.card() != card) {
                    continue;
                }
                long fit = discardFit(piles.get(m.target()), card, m.target());
                if (fit < choiceFit) { // strictly better: a tie keeps the earlier move
                    choice = m;
                    choiceFit = fit;
                }
            }
            return choice;
        }
        return firstPlay != null ? firstPlay : moves.get(0);
    }

    /**
     * How well {@code card} fits on {@code pile} (lower is better): an empty pile first (the
     * lowest-numbered), then a pile whose top is at or above the card (the closest), then one
     * whose top is below it (the closest); the Python key {@code (group, |gap| * 10 + target)}
     * folded into one number.
     */
    private static long discardFit(Pile pile, int card, int target) {
        if (pile.isEmpty()) {
            return target;
        }
        long gap = pile.top().getAsInt() - card;
        long group = gap >= 0 ? 1 : 2;
        return (group << 32) + Math.abs(gap) * 10 + target;
    }

    /** A uniformly random legal move ({@link Move#PASS} when there is none). */
    public static Move random(Observation observation, RandomGenerator rng) {
        List<Move> moves = observation.legalMoves();
        return moves.isEmpty() ? Move.PASS : moves.get(rng.nextInt(moves.size()));
    }

    /** The published baseline: play any legal card (at random), discard only when it must. */
    public static Move naive(Observation observation, RandomGenerator rng) {
        List<Move> plays = new ArrayList<>();
        for (Move m : observation.legalMoves()) {
            if (m.kind() == MoveKind.PLAY) {
                plays.add(m);
            }
        }
        return plays.isEmpty() ? random(observation, rng) : plays.get(rng.nextInt(plays.size()));
    }
}
