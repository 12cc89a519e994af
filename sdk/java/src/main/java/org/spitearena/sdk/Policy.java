package org.spitearena.sdk;

import java.util.Locale;

/** What bad behaviour (timeout, illegal or malformed action, wrong decision id) gets in a match. */
public enum Policy {
    UNSPECIFIED,
    /** The offending seat loses the game at once (and the rest of the match). */
    FORFEIT,
    /** The referee plays a fallback legal move and counts a strike; 3 strikes in a game forfeit it. */
    SUBSTITUTE;

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
