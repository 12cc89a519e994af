package org.spitearena.sdk;

import java.util.Objects;

/**
 * What {@link Bot#decide} returns: a {@link Move} (usually one of the observation's legal
 * moves), a {@link Plan}, or an {@link Index} into the legal moves; {@link #withDebug} attaches
 * a note for the replay to any of them. Whether the move is legal is the referee's to judge.
 */
public sealed interface Choice permits Move, Plan, Choice.Index, Choice.Noted {

    /**
     * Chooses {@code observation.legalMoves().get(i)}; a negative {@code i} counts from the end
     * ({@code -1} is the last legal move).
     */
    static Choice index(int i) {
        return new Index(i);
    }

    /** This choice with a note on what the bot was thinking, stored in the replay (cut to 256 bytes). */
    default Choice withDebug(String note) {
        return new Noted(this, note);
    }

    /** A choice by position in the legal moves; see {@link Choice#index(int)}. */
    record Index(int value) implements Choice {}

    /** A choice with a debug note; see {@link Choice#withDebug(String)}. */
    record Noted(Choice choice, String debug) implements Choice {
        public Noted {
            Objects.requireNonNull(choice, "choice");
            Objects.requireNonNull(debug, "debug");
        }
    }
}
