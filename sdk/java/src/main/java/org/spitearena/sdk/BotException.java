package org.spitearena.sdk;

/** The bot's own code failed (its cause); the referee counts that as a crash. */
public final class BotException extends SpiteException {
    private static final long serialVersionUID = 1L;

    public BotException(String message, Throwable cause) {
        super(message, cause);
    }
}
