package org.spitearena.sdk;

/** The bot cannot start: no referee address, no token, a bad setting. */
public final class ConfigException extends SpiteException {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }
}
