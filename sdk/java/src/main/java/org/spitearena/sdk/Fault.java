package org.spitearena.sdk;

/** What a bot did wrong with one action (the ordinal is the wire's number). */
public enum Fault {
    NONE,
    /** No answer within the deadline plus the time bank. */
    TIMEOUT,
    /** A well-formed move the rules forbid now. */
    ILLEGAL_MOVE,
    /** Not a valid action: no move, an index out of range, unset move fields, an empty or long plan. */
    MALFORMED,
    /**
     * An action for a decision that is not the open one. A late answer to a closed decision is
     * dropped and not counted against the bot; one for a decision that does not exist yet is a fault.
     */
    WRONG_DECISION,
    /** A fault this SDK does not know (a newer referee); see the result's error. */
    UNKNOWN
}
