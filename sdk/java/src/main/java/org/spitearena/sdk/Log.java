package org.spitearena.sdk;

import java.io.PrintStream;

/** The SDK's log: one line per entry on stderr, at or above a level. */
final class Log {
    private final Options.LogLevel level;
    private final PrintStream out;

    Log(Options.LogLevel level, PrintStream out) {
        this.level = level == null ? Options.LogLevel.OFF : level;
        this.out = out;
    }

    boolean enabled(Options.LogLevel at) {
        return at.compareTo(level) >= 0 && at != Options.LogLevel.OFF;
    }

    void debug(String message) {
        log(Options.LogLevel.DEBUG, message);
    }

    void info(String message) {
        log(Options.LogLevel.INFO, message);
    }

    void warn(String message) {
        log(Options.LogLevel.WARNING, message);
    }

    private void log(Options.LogLevel at, String message) {
        if (enabled(at)) {
            out.println("spite " + at + ": " + message);
        }
    }
}
