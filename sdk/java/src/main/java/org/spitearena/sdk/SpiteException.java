package org.spitearena.sdk;

/** Why a match could not be played to its end; see the subclasses. */
public class SpiteException extends Exception {
    private static final long serialVersionUID = 1L;

    public SpiteException(String message) {
        super(message);
    }

    public SpiteException(String message, Throwable cause) {
        super(message, cause);
    }
}
