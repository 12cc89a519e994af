package org.spitearena.sdk;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * The configuration of one bot process. {@link Spite#run} fills the fields left {@code null}
 * from the environment ({@link #fromEnv()}); {@link Spite#playMatch} uses them as they are.
 *
 * @param name shown in logs and leaderboards (cut to 64 bytes)
 * @param version the bot's version (cut to 64 bytes)
 * @param address the referee's: {@code host:port} or {@code unix:/absolute/path} (env SPITE_ADDRESS)
 * @param token the seat's secret token (env SPITE_TOKEN, or the file named by SPITE_TOKEN_FILE)
 * @param connectTimeout how long to wait for the referee to accept the connection (env
 *     SPITE_CONNECT_TIMEOUT, in seconds); {@code null}: {@link Spite#DEFAULT_CONNECT_TIMEOUT}
 * @param logLevel what the SDK logs on stderr (env SPITE_LOG_LEVEL); {@code null}: nothing
 */
public record Options(String name, String version, String address, String token, Duration connectTimeout,
                      LogLevel logLevel) {

    /** How much the SDK says on stderr. */
    public enum LogLevel {
        /** One line per decision, with its time. */
        DEBUG,
        /** The match's milestones: welcome, each game's start and end. */
        INFO,
        /** Only what looks wrong (the default of {@link #fromEnv()}). */
        WARNING,
        ERROR,
        OFF
    }

    /** Options with a name and version, the rest to come from the environment. */
    public static Options of(String name, String version) {
        return new Options(name, version, null, null, null, null);
    }

    public Options withAddress(String address) {
        return new Options(name, version, address, token, connectTimeout, logLevel);
    }

    public Options withToken(String token) {
        return new Options(name, version, address, token, connectTimeout, logLevel);
    }

    public Options withConnectTimeout(Duration connectTimeout) {
        return new Options(name, version, address, token, connectTimeout, logLevel);
    }

    public Options withLogLevel(LogLevel logLevel) {
        return new Options(name, version, address, token, connectTimeout, logLevel);
    }

    /**
     * These options with their {@code null} fields filled from the environment:
     *
     * <pre>
     * SPITE_ADDRESS          the referee: host:port or unix:/path
     * SPITE_TOKEN            the seat's secret token, or
     * SPITE_TOKEN_FILE       a file holding it
     * SPITE_CONNECT_TIMEOUT  seconds to wait for the referee (30)
     * SPITE_LOG_LEVEL        DEBUG, INFO, WARNING (default) or ERROR
     * </pre>
     *
     * Configuration never comes from the command line: a token in argv is visible to every
     * user of the machine.
     *
     * @throws ConfigException when the address or the token is missing, or a setting is bad
     */
    public Options fromEnv() throws ConfigException {
        return fromEnv(System.getenv());
    }

    /** {@link #fromEnv()} reading {@code env} instead of the process's environment. */
    public Options fromEnv(Map<String, String> env) throws ConfigException {
        String name = this.name == null || this.name.isBlank() ? "java-bot" : this.name;
        String version = this.version == null ? "" : this.version;
        String address = this.address;
        if (address == null || address.isBlank()) {
            address = env.getOrDefault("SPITE_ADDRESS", "").strip();
            if (address.isEmpty()) {
                throw new ConfigException("no referee address: set SPITE_ADDRESS (host:port or unix:/path)");
            }
        }
        String token = this.token;
        if (token == null || token.isBlank()) {
            token = readToken(env);
        }
        Duration connectTimeout = this.connectTimeout;
        String timeoutText = env.getOrDefault("SPITE_CONNECT_TIMEOUT", "").strip();
        if (connectTimeout == null && !timeoutText.isEmpty()) {
            double seconds;
            try {
                seconds = Double.parseDouble(timeoutText);
            } catch (NumberFormatException e) {
                seconds = Double.NaN;
            }
            if (!(seconds > 0) || Double.isInfinite(seconds)) {
                throw new ConfigException("SPITE_CONNECT_TIMEOUT must be a positive number of seconds, got \""
                        + timeoutText + "\"");
            }
            connectTimeout = Duration.ofNanos((long) (seconds * 1e9));
        }
        LogLevel logLevel = this.logLevel;
        if (logLevel == null) {
            logLevel = parseLevel(env.getOrDefault("SPITE_LOG_LEVEL", ""));
        }
        return new Options(name, version, address, token, connectTimeout, logLevel);
    }

    /**
     * These options for the referee's pipes ({@code SPITE_STDIO=protobuf}): no address, and the
     * token from SPITE_TOKEN or SPITE_TOKEN_FILE only when one is set (the pipes say which seat
     * this is), else empty.
     */
    Options forPipes(Map<String, String> env) throws ConfigException {
        String name = this.name == null || this.name.isBlank() ? "java-bot" : this.name;
        String version = this.version == null ? "" : this.version;
        String token = this.token;
        if (token == null || token.isBlank()) {
            boolean given = !env.getOrDefault("SPITE_TOKEN", "").isBlank()
                    || !env.getOrDefault("SPITE_TOKEN_FILE", "").isBlank();
            token = given ? readToken(env) : "";
        }
        LogLevel logLevel = this.logLevel == null ? parseLevel(env.getOrDefault("SPITE_LOG_LEVEL", "")) : this.logLevel;
        return new Options(name, version, null, token, connectTimeout, logLevel);
    }

    private static String readToken(Map<String, String> env) throws ConfigException {
        String token = env.getOrDefault("SPITE_TOKEN", "").strip();
        if (!token.isEmpty()) {
            return token;
        }
        String path = env.getOrDefault("SPITE_TOKEN_FILE", "");
        if (path.isEmpty()) {
            throw new ConfigException("no seat token: set SPITE_TOKEN, or SPITE_TOKEN_FILE to a file holding it "
                    + "(the referee or `spite play` does this for the bots it starts)");
        }
        try {
            token = Files.readString(Path.of(path)).strip();
        } catch (IOException | RuntimeException e) {
            throw new ConfigException("cannot read the seat token from SPITE_TOKEN_FILE=" + path + ": " + e);
        }
        if (token.isEmpty()) {
            throw new ConfigException("the token file " + path + " is empty");
        }
        return token;
    }

    private static LogLevel parseLevel(String text) {
        String name = text.strip().toUpperCase(Locale.ROOT);
        switch (name) {
            case "DEBUG":
                return LogLevel.DEBUG;
            case "INFO":
                return LogLevel.INFO;
            case "", "WARNING", "WARN":
                return LogLevel.WARNING;
            case "ERROR":
                return LogLevel.ERROR;
            default:
                System.err.println("SPITE_LOG_LEVEL=\"" + text + "\" is not a logging level; using WARNING");
                return LogLevel.WARNING;
        }
    }
}
