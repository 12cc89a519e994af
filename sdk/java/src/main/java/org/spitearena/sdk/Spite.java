package org.spitearena.sdk;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.MetadataUtils;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.spitearena.v1.Hello;
import org.spitearena.v1.RefereeGrpc;

/**
 * The entry points: {@link #run} plays one match as a bot process's main function and exits;
 * {@link #playMatch} plays one and returns its result, for tests and tools.
 *
 * <pre>{@code
 * public static void main(String[] args) {
 *     Spite.run((observation, decision) -> Policies.greedy(observation), Options.of("mybot", "0.1.0"));
 * }
 * }</pre>
 */
public final class Spite {
    /** The protocol version this SDK speaks. */
    public static final int PROTOCOL_VERSION = 1;
    /** The largest message either side may send. */
    public static final int MAX_MESSAGE_BYTES = 64 * 1024;
    /** The most the referee keeps of a bot's name and of its version. */
    public static final int MAX_NAME_BYTES = 64;
    /** The most of an action's debug note the referee keeps; the SDK cuts longer notes. */
    public static final int MAX_DEBUG_BYTES = 256;
    /** The most moves the referee accepts in one {@link Plan}. */
    public static final int MAX_PLAN_MOVES = 32;
    /** The metadata key that carries the seat token (it is in the Hello message too). */
    public static final String TOKEN_METADATA_KEY = "spite-token";
    /** How long to wait for the referee to accept the connection, unless told otherwise. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(30);

    /** Exit status after the match. */
    public static final int EXIT_OK = 0;
    /** Exit status when the referee refused or ended the stream, or the bot failed. */
    public static final int EXIT_FAILED = 1;
    /** Exit status when the address or token is missing or bad. */
    public static final int EXIT_CONFIG = 2;
    /** Exit status when the thread playing the match was interrupted (SIGINT gives 130 too). */
    public static final int EXIT_INTERRUPTED = 130;

    private static final Metadata.Key<String> TOKEN_KEY =
            Metadata.Key.of(TOKEN_METADATA_KEY, Metadata.ASCII_STRING_MARSHALLER);

    private Spite() {}

    /**
     * Plays one match as the process's main function, configured by {@code options} and the
     * environment ({@link Options#fromEnv()}), and exits: status 0 after the match, 2 when the
     * address or token is missing, 1 when the referee refused or ended the stream or the bot
     * failed ({@code decide} or a hook threw), each failure explained on stderr. SIGINT and
     * SIGTERM end the JVM with its usual 130 and 143.
     *
     * <p>Started by the referee on its pipes ({@code SPITE_STDIO=protobuf}: the manifest says
     * {@code transport = "stdio"}, {@code stdio_format = "protobuf"}) it plays there, on
     * protobuf frames ({@link #playPipes}); any other SPITE_STDIO exits 2.
     *
     * <p>With SPITE_ARENA and SPITE_BOT_KEY set, it joins that ladder instead and plays every
     * game it is given until stopped, or until the arena refuses the bot (status 1): see
     * {@link Ladder}.
     */
    public static void run(Bot bot, Options options) {
        AtomicBoolean over = new AtomicBoolean();
        String name = options.name() == null || options.name().isBlank() ? "java-bot" : options.name();
        Thread interrupted = new Thread(() -> {
            if (!over.get()) {
                System.err.println(name + ": interrupted");
            }
        }, "spite-shutdown");
        Runtime.getRuntime().addShutdownHook(interrupted);
        int status = run(bot, options, System.getenv(), System.err);
        over.set(true);
        System.exit(status);
    }

    /** {@link #run(Bot, Options)} without the exit: returns the exit status. */
    static int run(Bot bot, Options options, Map<String, String> env, PrintStream err) {
        String name = options.name() == null || options.name().isBlank() ? "java-bot" : options.name();
        String stdio = env.getOrDefault(PipeStream.STDIO_VARIABLE, "").strip();
        if (!stdio.isEmpty() && !stdio.equals(PipeStream.FORMAT)) {
            err.println(name + ": " + PipeStream.STDIO_VARIABLE + "=" + stdio + ": this SDK speaks the referee's pipes "
                    + "only as protobuf frames: set stdio_format = \"protobuf\" in bot.toml (or transport = \"grpc\")");
            return EXIT_CONFIG;
        }
        if (stdio.isEmpty() && Ladder.requested(env)) {
            return Ladder.run(bot, options, env, err);
        }
        try {
            if (stdio.isEmpty()) {
                playMatch(bot, options.fromEnv(env));
            } else {
                playPipes(bot, options.forPipes(env), PipeStream.fromStdio());
            }
            return EXIT_OK;
        } catch (ConfigException e) {
            err.println(name + ": " + e.getMessage());
            return EXIT_CONFIG;
        } catch (BotException e) {
            err.println(name + ": " + e.getMessage() + "; the bot stopped (the referee counts this as a crash)");
            e.getCause().printStackTrace(err);
            return EXIT_FAILED;
        } catch (SpiteException e) {
            err.println(name + ": " + e.getMessage());
            return EXIT_FAILED;
        } catch (InterruptedException e) {
            err.println(name + ": interrupted");
            return EXIT_INTERRUPTED;
        } catch (RuntimeException | Error e) {
            err.println(name + ": the bot failed (the referee counts this as a crash): " + e);
            e.printStackTrace(err);
            return EXIT_FAILED;
        }
    }

    /**
     * Plays one match of {@code bot} against the referee at {@code options.address()} with
     * {@code options.token()}, and returns its result once the referee has sent MatchOver.
     * The bot is called on this thread only.
     *
     * @throws RefereeException the referee refused the bot or ended the stream early
     * @throws BotException {@code decide} or a hook threw (the cause), or {@code decide} returned no choice
     * @throws ConfigException the options have no address or token, or a bad address
     * @throws SpiteException a message from the referee made no sense (a protocol error)
     * @throws InterruptedException this thread was interrupted
     */
    public static MatchResult playMatch(Bot bot, Options options) throws SpiteException, InterruptedException {
        if (options.address() == null || options.address().isBlank() || options.token() == null
                || options.token().isBlank()) {
            throw new ConfigException("playMatch needs Options.address and Options.token");
        }
        Log log = new Log(options.logLevel(), System.err);
        Duration connectTimeout = options.connectTimeout() == null || options.connectTimeout().isNegative()
                || options.connectTimeout().isZero() ? DEFAULT_CONNECT_TIMEOUT : options.connectTimeout();
        try (Connection connection = Connection.open(options.address())) {
            if (!connection.awaitReady(connectTimeout)) {
                throw new RefereeException(Status.Code.UNAVAILABLE, "connection " + connection.state(),
                        "cannot reach the referee at " + options.address() + " (waited "
                                + connectTimeout.toMillis() / 1000.0 + " s; is it running?)");
            }
            Metadata metadata = new Metadata();
            metadata.put(TOKEN_KEY, options.token());
            GrpcStream stream = new GrpcStream();
            RefereeGrpc.newStub(connection.channel)
                    .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(metadata))
                    .withMaxOutboundMessageSize(MAX_MESSAGE_BYTES)
                    .play(stream);
            return new Session(bot, log, stream).play(hello(options));
        }
    }

    /**
     * Plays one match on protobuf frames: RefereeMessages read from {@code in}, BotMessages
     * written to {@code out}; {@code options.token()} may be empty (the pipes say which seat
     * this is). For tests and tools; a bot process calls {@link #run}, which plays on stdin and
     * stdout when the referee started it with {@code SPITE_STDIO=protobuf}.
     *
     * @throws FrameException the referee's frames cannot be read
     * @throws RefereeException the referee refused the bot or closed the pipe early
     * @throws BotException {@code decide} or a hook threw (the cause), or {@code decide} returned no choice
     * @throws SpiteException a message from the referee made no sense (a protocol error)
     */
    public static MatchResult playPipes(Bot bot, Options options, InputStream in, OutputStream out)
            throws SpiteException, InterruptedException {
        return playPipes(bot, options, new PipeStream(in, out));
    }

    private static MatchResult playPipes(Bot bot, Options options, PipeStream stream)
            throws SpiteException, InterruptedException {
        Log log = new Log(options.logLevel(), System.err);
        return new Session(bot, log, stream).play(hello(options));
    }

    private static Hello hello(Options options) {
        return Hello.newBuilder()
                .setToken(options.token() == null ? "" : options.token())
                .setName(Wire.cutUtf8(options.name() == null ? "" : options.name(), MAX_NAME_BYTES))
                .setVersion(Wire.cutUtf8(options.version() == null ? "" : options.version(), MAX_NAME_BYTES))
                .setProtocolVersion(PROTOCOL_VERSION)
                .build();
    }

    /**
     * SPITE_BOT_SEED, the seed the referee hands a bot for its own randomness (0 when unset;
     * text that is not a number is hashed), so that a match replayed with the same seeds sees
     * the same choices.
     */
    public static long botSeed() {
        return botSeed(System.getenv());
    }

    static long botSeed(Map<String, String> env) {
        String text = env.getOrDefault("SPITE_BOT_SEED", "").strip();
        if (text.isEmpty()) {
            return 0;
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            long hash = 0xcbf29ce484222325L; // FNV-1a, 64 bits, as the Go SDK hashes it
            for (byte b : text.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
                hash ^= b & 0xff;
                hash *= 0x100000001b3L;
            }
            return hash;
        }
    }
}
