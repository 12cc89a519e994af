package org.spitearena.sdk;

import java.util.Locale;

/**
 * How a game ended: by the rules (the first four after {@link #UNKNOWN}) or cut off by the
 * referee (the others, with an offending seat). The ordinal is the wire's number.
 */
public enum Ending {
    /** An ending this SDK does not know (a newer referee); see the outcome's reason. */
    UNKNOWN,
    /** A seat (team) played the last card of its stock and won. */
    STOCK_EMPTIED,
    /** A full round passed with no card played or drawn; a draw. */
    STALEMATE,
    /** The turn cap was reached; a draw. */
    TURN_CAP,
    /** A draw found the draw pile empty (classic-20); a draw. */
    DRAW_PILE_EXHAUSTED,
    /** The offender ran out of time (decision limit and time bank). */
    TIMEOUT,
    /** The offender sent an illegal move (forfeit policy, or a third strike). */
    ILLEGAL_MOVE,
    /** The offender sent a message that is not a valid action. */
    MALFORMED,
    /** The offender's process exited or its stream failed. */
    CRASH,
    /** The offender closed its stream mid-match. */
    DISCONNECT,
    /** The offender never connected in time. */
    NO_SHOW,
    /** The offender was forfeited for another reason. */
    FORFEIT;

    /** Whether the game ended by the rules rather than being cut off by the referee. */
    public boolean byRules() {
        return this == STOCK_EMPTIED || this == STALEMATE || this == TURN_CAP || this == DRAW_PILE_EXHAUSTED;
    }

    /** The referee's name for the ending, e.g. {@code stock-emptied}. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
