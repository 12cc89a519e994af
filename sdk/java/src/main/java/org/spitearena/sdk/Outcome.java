package org.spitearena.sdk;

import java.util.List;

/**
 * The result of one game.
 *
 * @param ending how the game ended
 * @param winners the seats that won (both partners of a team); empty for a draw
 * @param scores points per seat, by the rule set's scoring
 * @param reason one human-readable sentence, e.g. "seat 1 emptied its stock"
 * @param offender the seat at fault for the referee's endings, or -1
 */
public record Outcome(Ending ending, List<Integer> winners, List<Integer> scores, String reason, int offender) {
    public Outcome {
        winners = List.copyOf(winners);
        scores = List.copyOf(scores);
    }

    /** Whether nobody won. */
    public boolean isDraw() {
        return winners.isEmpty();
    }
}
