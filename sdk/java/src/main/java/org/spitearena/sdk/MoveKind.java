package org.spitearena.sdk;

/**
 * What a move does. The order is the rules engine's and every SDK's (PLAY=0, DISCARD=1,
 * PASS=2); the wire adds one, keeping 0 for "unspecified", and only {@link Wire} knows that.
 */
public enum MoveKind {
    /** Put a card onto a centre pile. */
    PLAY,
    /** Put a hand card on one of the mover's discard piles; it ends the turn. */
    DISCARD,
    /** End the turn without discarding; legal only when no discard is. */
    PASS
}
