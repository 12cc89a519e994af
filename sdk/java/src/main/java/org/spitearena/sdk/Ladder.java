package org.spitearena.sdk;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import java.io.PrintStream;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.spitearena.v1.ArenaGrpc;
import org.spitearena.v1.Assignment;
import org.spitearena.v1.JoinRequest;

/**
 * Joining a hosted ladder ({@code spite serve}, docs/hosting.md) as a remote bot: bring your
 * own compute. When the environment has
 *
 * <pre>
 * SPITE_ARENA           the competition's gRPC address, host:port
 * SPITE_BOT_KEY         the entrant's API key (spite arena add-entrant printed it)
 * SPITE_ARENA_CAPACITY  games this process plays at once (default 1, at most 64)
 * </pre>
 *
 * {@link Spite#run} joins the lobby ({@code Arena.Join}, proto/spite/v1/arena.proto) instead of
 * playing one match, and plays every game it is assigned over {@code Referee.Play} at the same
 * address, each on a thread of its own, until the process is stopped: on its own copy of the
 * bot as it was before its first game when the bot has one to give ({@link Bot#fresh}), else
 * all on the one bot, whose calls the games then make in turn (one at a time, so the bot still
 * needs no locking). When the server goes away it joins again, waiting a little longer each
 * time (1, 2, 5, then every 10 s). A refusal (an unknown key, a name or version out of range,
 * too many Joins, a benched or disabled version) ends the process with one line saying why.
 * The same behaviour as the Python SDK's {@code spite_sdk.arena}.
 */
public final class Ladder {
    /** The metadata key that carries the entrant's key on Arena.Join (it is in the request too). */
    public static final String BOT_KEY_METADATA_KEY = "spite-bot-key";
    /** How long to wait before joining again after the n-th failure in a row (the last repeats). */
    public static final List<Duration> RETRY =
            List.of(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(10));
    /** The statuses that mean the server will not take this bot: the process stops (arena.proto, rpc Join). */
    public static final Set<Status.Code> REFUSALS = EnumSet.of(Status.Code.UNAUTHENTICATED,
            Status.Code.INVALID_ARGUMENT, Status.Code.RESOURCE_EXHAUSTED, Status.Code.FAILED_PRECONDITION);

    private static final Metadata.Key<String> KEY =
            Metadata.Key.of(BOT_KEY_METADATA_KEY, Metadata.ASCII_STRING_MARSHALLER);

    /** Where to join and how many games to take at once. */
    public record Settings(String address, String key, int capacity) {}

    private Ladder() {}

    /** Both SPITE_ARENA and SPITE_BOT_KEY are set: the bot is a remote ladder bot. */
    public static boolean requested(Map<String, String> env) {
        return !env.getOrDefault("SPITE_ARENA", "").isBlank() && !env.getOrDefault("SPITE_BOT_KEY", "").isBlank();
    }

    /** The ladder's settings from {@code env}. */
    public static Settings settings(Map<String, String> env) throws ConfigException {
        String address = env.getOrDefault("SPITE_ARENA", "").strip();
        String key = env.getOrDefault("SPITE_BOT_KEY", "").strip();
        String text = env.getOrDefault("SPITE_ARENA_CAPACITY", "").strip();
        int capacity;
        try {
            capacity = text.isEmpty() ? 1 : Integer.parseInt(text);
        } catch (NumberFormatException e) {
            capacity = 0;
        }
        if (capacity < 1 || capacity > 64) {
            throw new ConfigException("SPITE_ARENA_CAPACITY must be a whole number in 1..64");
        }
        // This SDK has no TLS: sending the key in plaintext where TLS was asked for would leak it.
        if (address.startsWith("tls:") || !env.getOrDefault("SPITE_TLS_CA", "").isBlank()
                || env.getOrDefault("SPITE_TLS", "").strip().equals("1")) {
            throw new ConfigException("the Java SDK connects in plaintext only, and SPITE_ARENA (tls:) or SPITE_TLS* "
                    + "asks for TLS; use the Python or Go SDK, or a TLS-terminating tunnel to the arena");
        }
        if (address.startsWith("unix:") || address.startsWith("/")) {
            throw new ConfigException("bad arena address \"" + address + "\": want host:port");
        }
        return new Settings(address, key, capacity);
    }

    /**
     * Plays ladder games until the arena refuses the bot, and returns the exit status:
     * {@link Spite#EXIT_FAILED} for a refusal, {@link Spite#EXIT_CONFIG} for a bad setting,
     * {@link Spite#EXIT_INTERRUPTED} when this thread is interrupted.
     */
    static int run(Bot bot, Options options, Map<String, String> env, PrintStream err) {
        String name = options.name() == null || options.name().isBlank() ? "java-bot" : options.name();
        Settings settings;
        Options seat;
        try {
            settings = settings(env);
            // The token is each game's; the rest (name, log level, connect timeout) is the bot's.
            seat = options.withAddress(settings.address()).withToken("-").fromEnv(env);
        } catch (ConfigException e) {
            err.println(name + ": " + e.getMessage());
            return Spite.EXIT_CONFIG;
        }
        Bot pristine = bot.fresh();
        Bot shared = new Serialized(bot);
        JoinRequest request = JoinRequest.newBuilder()
                .setKey(settings.key())
                .setBotName(seat.name())
                .setBotVersion(seat.version())
                .setCapacity(settings.capacity())
                .build();
        Metadata metadata = new Metadata();
        metadata.put(KEY, settings.key());
        int failures = 0;
        while (true) {
            Status ended = null;
            try (Connection connection = Connection.open(settings.address())) {
                Iterator<Assignment> assignments = ArenaGrpc.newBlockingStub(connection.channel)
                        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(metadata))
                        .join(request);
                while (assignments.hasNext()) {
                    Assignment assignment = assignments.next();
                    failures = 0;
                    Bot player = pristine == null ? shared : pristine.fresh();
                    Options game = seat.withToken(assignment.getToken());
                    Thread thread = new Thread(() -> play(player == null ? shared : player, game,
                            assignment.getMatchId(), err), "spite-game-" + assignment.getMatchId());
                    thread.setDaemon(true);
                    thread.start();
                }
            } catch (StatusRuntimeException e) {
                ended = e.getStatus();
            } catch (ConfigException e) {
                err.println(name + ": " + e.getMessage());
                return Spite.EXIT_CONFIG;
            }
            if (ended != null && REFUSALS.contains(ended.getCode())) {
                err.println(name + ": the arena refused to let the bot join: " + ended.getDescription());
                return Spite.EXIT_FAILED;
            }
            Duration wait = RETRY.get(Math.min(failures, RETRY.size() - 1));
            failures += 1;
            err.println(name + ": not joined to the arena at " + settings.address() + "; trying again in "
                    + wait.toSeconds() + " s");
            try {
                Thread.sleep(wait.toMillis());
            } catch (InterruptedException e) {
                err.println(name + ": interrupted");
                return Spite.EXIT_INTERRUPTED;
            }
        }
    }

    private static void play(Bot bot, Options game, String matchId, PrintStream err) {
        try {
            Spite.playMatch(bot, game);
        } catch (SpiteException e) {
            err.println(game.name() + ": game " + matchId + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            err.println(game.name() + ": game " + matchId + ": the bot raised " + e);
        }
    }

    /** The one bot of games that have no copy of their own: each call holds it alone. */
    private record Serialized(Bot bot) implements Bot {
        @Override
        public Choice decide(Observation observation, Decision decision) throws Exception {
            synchronized (bot) {
                return bot.decide(observation, decision);
            }
        }

        @Override
        public void onWelcome(Welcome welcome) {
            synchronized (bot) {
                bot.onWelcome(welcome);
            }
        }

        @Override
        public void onGameStart(int game, Observation observation) {
            synchronized (bot) {
                bot.onGameStart(game, observation);
            }
        }

        @Override
        public void onEvents(int game, List<Event> events) {
            synchronized (bot) {
                bot.onEvents(game, events);
            }
        }

        @Override
        public void onResult(ActionResult result) {
            synchronized (bot) {
                bot.onResult(result);
            }
        }

        @Override
        public void onGameOver(int game, Outcome outcome) {
            synchronized (bot) {
                bot.onGameOver(game, outcome);
            }
        }

        @Override
        public void onMatchOver(MatchResult result) {
            synchronized (bot) {
                bot.onMatchOver(result);
            }
        }
    }
}
