package org.spitearena.sdk;

import java.util.List;

/**
 * Moves to play in order without a round trip each. The referee applies them one by one
 * and stops, dropping the rest unjudged, as soon as the seat learns something new (a stock
 * card turned up, cards drawn) or the turn ends; then it asks again. An illegal move stops
 * it too, and the moves before it stay played. A plan holds 1 to {@link Spite#MAX_PLAN_MOVES}
 * moves (the referee counts an empty or longer plan as malformed).
 */
public record Plan(List<Move> moves) implements Choice {
    public Plan {
        moves = List.copyOf(moves);
    }

    /** A plan of these moves, in order. */
    public static Plan of(Move... moves) {
        return new Plan(List.of(moves));
    }
}
