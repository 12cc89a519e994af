package org.spitearena.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Metadata;
import io.grpc.Status;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.spitearena.v1.BotMessage;
import org.spitearena.v1.DecisionRequest;
import org.spitearena.v1.EventBatch;
import org.spitearena.v1.GameOver;
import org.spitearena.v1.GameStart;
import org.spitearena.v1.MatchOver;
import org.spitearena.v1.RefereeMessage;

/** The client against a real gRPC server standing in for the referee. */
class SpiteTest {
    static final org.spitearena.v1.RuleSet RULES = org.spitearena.v1.RuleSet.newBuilder()
            .setName("standard").setPlayers(2).setCentrePiles(4).setDiscardPiles(4)
            .addWildRanks(0).addWildRanks(13).build();

    @TempDir
    Path dir;

    static org.spitearena.v1.Move wire(String notation) {
        return Wire.toWire(Move.parse(notation));
    }

    /** A bot that plays the last legal move and notes every call (and the thread it came on). */
    static final class Recorder implements Bot {
        final List<String> calls = new ArrayList<>();
        final List<Decision> decisions = new ArrayList<>();
        final Set<Thread> threads = new HashSet<>();

        @Override
        public Choice decide(Observation observation, Decision decision) {
            threads.add(Thread.currentThread());
            decisions.add(decision);
            calls.add("decide " + decision.id() + " " + observation.legalMoves());
            return Choice.index(-1).withDebug("last");
        }

        @Override
        public void onWelcome(Welcome welcome) {
            threads.add(Thread.currentThread());
            calls.add("welcome seat " + welcome.seat() + " " + welcome.rules().name() + " " + welcome.policy());
        }

        @Override
        public void onGameStart(int game, Observation observation) {
            calls.add("start " + game + " hand " + observation.hand());
        }

        @Override
        public void onEvents(int game, List<Event> events) {
            calls.add("events " + game + " " + events.get(0).kind());
        }

        @Override
        public void onResult(ActionResult result) {
            calls.add("result " + result.decisionId() + " " + result.applied());
        }

        @Override
        public void onGameOver(int game, Outcome outcome) {
            calls.add("over " + game + " " + outcome.ending());
        }

        @Override
        public void onMatchOver(MatchResult result) {
            threads.add(Thread.currentThread());
            calls.add("match " + result.points());
        }
    }

    private static RefereeMessage.Builder welcome() {
        return RefereeMessage.newBuilder().setWelcome(org.spitearena.v1.Welcome.newBuilder()
                .setRules(RULES).setProtocolVersion(1).setGames(1));
    }

    private static RefereeMessage.Builder decision(long id, String... legal) {
        org.spitearena.v1.Observation.Builder observation = org.spitearena.v1.Observation.newBuilder();
        for (String move : legal) {
            observation.addLegalMoves(wire(move));
        }
        return RefereeMessage.newBuilder().setDecision(DecisionRequest.newBuilder()
                .setDecisionId(id).setDeadlineMs(100).setObservation(observation));
    }

    @ParameterizedTest
    @ValueSource(strings = {"unix", "tcp"})
    void playsAWholeMatch(String network) throws Exception {
        BlockingQueue<String> seen = new LinkedBlockingQueue<>();
        FakeReferee.Script script = stream -> {
            BotMessage first = stream.recv();
            var hello = first.getHello();
            seen.add("metadata " + stream.headers.get(Metadata.Key.of("spite-token", Metadata.ASCII_STRING_MARSHALLER))
                    + " hello " + hello.getToken() + " " + hello.getName() + " " + hello.getVersion() + " "
                    + hello.getProtocolVersion());
            stream.send(RefereeMessage.newBuilder().setWelcome(org.spitearena.v1.Welcome.newBuilder()
                    .setSeat(1).setRules(RULES).setProtocolVersion(1).setGames(1)
                    .setPolicy(org.spitearena.v1.Policy.POLICY_FORFEIT)));
            stream.send(RefereeMessage.newBuilder().setGameStart(GameStart.newBuilder()
                    .setObservation(org.spitearena.v1.Observation.newBuilder().setSeat(1).addHand(3).addHand(9))));
            stream.send(RefereeMessage.newBuilder().setEvents(EventBatch.newBuilder()
                    .addEvents(org.spitearena.v1.Event.newBuilder().setKind(org.spitearena.v1.EventKind.EVENT_KIND_DEAL))));
            stream.send(RefereeMessage.newBuilder().setDecision(DecisionRequest.newBuilder()
                    .setDecisionId(41).setDeadlineMs(1500).setBankMs(3000)
                    .setObservation(org.spitearena.v1.Observation.newBuilder().setSeat(1).setToMove(1)
                            .addLegalMoves(wire("H:3>C0")).addLegalMoves(wire("H:9>D0")))));
            var action = stream.recv().getAction();
            seen.add("action " + action.getDecisionId() + " index " + action.getMoveIndex() + " debug "
                    + action.getDebug());
            stream.send(RefereeMessage.newBuilder().setResult(org.spitearena.v1.ActionResult.newBuilder()
                    .setDecisionId(41).addApplied(wire("H:9>D0"))));
            stream.send(RefereeMessage.newBuilder().setGameOver(GameOver.newBuilder()
                    .setOutcome(org.spitearena.v1.Outcome.newBuilder()
                            .setEnding(org.spitearena.v1.Ending.ENDING_STALEMATE).setOffender(-1))));
            stream.send(RefereeMessage.newBuilder().setMatchOver(MatchOver.newBuilder()
                    .addPoints(0).addPoints(0).setReason("tied")));
            BotMessage after = stream.recv(); // the bot half-closes after MatchOver
            seen.add(after == null ? "half-closed" : "after MatchOver: " + after);
        };
        Recorder bot = new Recorder();
        MatchResult result;
        try (FakeReferee referee = FakeReferee.start(network, dir, script)) {
            result = Spite.playMatch(bot, Options.of("rec", "2.0").withAddress(referee.address).withToken("tok"));
        }
        assertEquals("tied", result.reason());
        assertEquals(List.of(0, 0), result.points());
        assertEquals(List.of(
                "welcome seat 1 standard forfeit",
                "start 0 hand [3, 9]",
                "events 0 DEAL",
                "decide 41 [H:3>C0, H:9>D0]",
                "result 41 [H:9>D0]",
                "over 0 stalemate",
                "match [0, 0]"), bot.calls);
        assertEquals(Set.of(Thread.currentThread()), bot.threads, "every call on the caller's thread");
        for (String line : List.of("metadata tok hello tok rec 2.0 1", "action 41 index 1 debug last", "half-closed")) {
            assertEquals(line, seen.poll(5, TimeUnit.SECONDS));
        }
        Decision decision = bot.decisions.get(0);
        assertEquals(41, decision.id());
        assertEquals(Duration.ofMillis(1500), decision.limit());
        assertEquals(Duration.ofSeconds(3), decision.bank());
        assertEquals(decision.receivedNanos() + 1_500_000_000L, decision.deadlineNanos());
        assertEquals(decision.deadlineNanos() + 3_000_000_000L, decision.finalDeadlineNanos());
    }

    @Test
    void aPlanAndAMoveGoOutAsSent() throws Exception {
        BlockingQueue<org.spitearena.v1.Action> actions = new LinkedBlockingQueue<>();
        FakeReferee.Script script = stream -> {
            stream.recv();
            stream.send(welcome());
            stream.send(decision(1, "S:A>C0", "H:9>D0"));
            actions.add(stream.recv().getAction());
            stream.send(decision(2, "H:2>C0", "H:9>D0"));
            actions.add(stream.recv().getAction());
            stream.send(RefereeMessage.newBuilder().setMatchOver(MatchOver.getDefaultInstance()));
        };
        Bot bot = (observation, decision) -> decision.id() == 1
                ? Plan.of(Move.parse("S:A>C0"), Move.parse("H:2>C0"))
                : observation.legalMoves().get(0);
        try (FakeReferee referee = FakeReferee.start("unix", dir, script)) {
            Spite.playMatch(bot, Options.of("plan", "1").withAddress(referee.address).withToken("t"));
        }
        org.spitearena.v1.Action plan = actions.take();
        assertEquals(List.of(wire("S:A>C0"), wire("H:2>C0")), plan.getPlan().getMovesList());
        org.spitearena.v1.Action move = actions.take();
        assertEquals(2, move.getDecisionId());
        assertEquals(wire("H:2>C0"), move.getMove());
    }

    @Test
    void refereeRefuses() throws Exception {
        try (FakeReferee referee = FakeReferee.start("unix", dir, stream -> {
            throw Status.UNAUTHENTICATED.withDescription("unknown seat token").asException();
        })) {
            RefereeException error = assertThrows(RefereeException.class, () ->
                    Spite.playMatch(new Recorder(), Options.of("x", "1").withAddress(referee.address).withToken("bad")));
            assertEquals(Status.Code.UNAUTHENTICATED, error.code());
            assertTrue(error.getMessage().contains("refused the seat token"), error.getMessage());
            assertTrue(error.getMessage().contains("(UNAUTHENTICATED: unknown seat token)"), error.getMessage());
        }
    }

    @Test
    void refereeClosesEarly() throws Exception {
        try (FakeReferee referee = FakeReferee.start("unix", dir, FakeReferee.Stream::recv)) {
            RefereeException error = assertThrows(RefereeException.class, () ->
                    Spite.playMatch(new Recorder(), Options.of("x", "1").withAddress(referee.address).withToken("t")));
            assertEquals(Status.Code.OK, error.code());
            assertTrue(error.getMessage().contains("closed the stream before the match was over"), error.getMessage());
        }
    }

    /** A referee that asks one decision and reports how the bot's stream ended. */
    private FakeReferee oneDecision(BlockingQueue<String> ends) throws Exception {
        return FakeReferee.start("unix", dir, stream -> {
            stream.recv();
            stream.send(welcome());
            stream.send(decision(1, "pass"));
            try {
                ends.add("then " + stream.recv());
            } catch (AssertionError e) {
                ends.add("then " + Status.fromThrowable(e.getCause()).getCode());
            }
        });
    }

    @Test
    void decideThrowingStopsTheBot() throws Exception {
        BlockingQueue<String> ends = new LinkedBlockingQueue<>();
        Exception boom = new Exception("boom");
        try (FakeReferee referee = oneDecision(ends)) {
            BotException error = assertThrows(BotException.class, () -> Spite.playMatch((observation, decision) -> {
                throw boom;
            }, Options.of("x", "1").withAddress(referee.address).withToken("t")));
            assertEquals(boom, error.getCause());
            assertTrue(error.getMessage().contains("decide failed on decision 1"), error.getMessage());
            assertEquals("then CANCELLED", ends.poll(5, TimeUnit.SECONDS), "the bot cancels its stream");
        }
    }

    @Test
    void aBugInTheBotIsReportedWithItsStack() throws Exception {
        BlockingQueue<String> ends = new LinkedBlockingQueue<>();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (FakeReferee referee = oneDecision(ends)) {
            Map<String, String> env = Map.of("SPITE_ADDRESS", referee.address, "SPITE_TOKEN", "t");
            int status = Spite.run((observation, decision) -> observation.legalMoves().get(5), Options.of("buggy", "1"),
                    env, new PrintStream(err, true, StandardCharsets.UTF_8));
            assertEquals(Spite.EXIT_FAILED, status);
        }
        String report = err.toString(StandardCharsets.UTF_8);
        assertTrue(report.startsWith("buggy: decide failed on decision 1: java.lang.IndexOutOfBoundsException"), report);
        assertTrue(report.contains("the referee counts this as a crash"), report);
        assertTrue(report.contains("at org.spitearena.sdk.SpiteTest"), report);
    }

    @Test
    void aNullChoiceStopsTheBot() throws Exception {
        try (FakeReferee referee = oneDecision(new LinkedBlockingQueue<>())) {
            BotException error = assertThrows(BotException.class, () -> Spite.playMatch((observation, decision) -> null,
                    Options.of("x", "1").withAddress(referee.address).withToken("t")));
            assertTrue(error.getMessage().contains("no choice"), error.getMessage());
        }
    }

    @Test
    void noReferee() {
        long started = System.nanoTime();
        RefereeException error = assertThrows(RefereeException.class, () -> Spite.playMatch(new Recorder(),
                Options.of("x", "1").withAddress("unix:" + dir.resolve("nobody.sock")).withToken("t")
                        .withConnectTimeout(Duration.ofMillis(300))));
        assertEquals(Status.Code.UNAVAILABLE, error.code());
        assertTrue(error.getMessage().contains("cannot reach the referee"), error.getMessage());
        assertTrue(System.nanoTime() - started < 5_000_000_000L, "gave up long after the 300 ms connect timeout");
    }

    @Test
    void configurationComesFromTheEnvironment() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream errors = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertEquals(Spite.EXIT_CONFIG, Spite.run(new Recorder(), Options.of("x", "1"), Map.of(), errors));
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("x: no referee address"));

        ConfigException noToken = assertThrows(ConfigException.class,
                () -> Options.of("x", "1").fromEnv(Map.of("SPITE_ADDRESS", "localhost:1")));
        assertTrue(noToken.getMessage().contains("no seat token"), noToken.getMessage());

        Path file = dir.resolve("token");
        Files.writeString(file, "secret\n");
        Options options = Options.of("x", "1").fromEnv(Map.of("SPITE_ADDRESS", "localhost:1",
                "SPITE_TOKEN_FILE", file.toString(), "SPITE_CONNECT_TIMEOUT", "1.5", "SPITE_LOG_LEVEL", "debug"));
        assertEquals("secret", options.token());
        assertEquals("localhost:1", options.address());
        assertEquals(Duration.ofMillis(1500), options.connectTimeout());
        assertEquals(Options.LogLevel.DEBUG, options.logLevel());

        Options direct = Options.of("x", "1").fromEnv(Map.of("SPITE_ADDRESS", "a:1", "SPITE_TOKEN", "direct",
                "SPITE_TOKEN_FILE", file.toString()));
        assertEquals("direct", direct.token(), "SPITE_TOKEN wins over SPITE_TOKEN_FILE");
        assertEquals(Options.LogLevel.WARNING, direct.logLevel());
        assertNull(direct.connectTimeout());

        Files.writeString(file, "  \n");
        assertThrows(ConfigException.class, () -> Options.of("x", "1").fromEnv(Map.of("SPITE_ADDRESS", "a:1",
                "SPITE_TOKEN_FILE", file.toString())));
        assertThrows(ConfigException.class, () -> Options.of("x", "1").fromEnv(Map.of("SPITE_ADDRESS", "a:1",
                "SPITE_TOKEN", "t", "SPITE_CONNECT_TIMEOUT", "soon")));
        assertThrows(ConfigException.class, () -> Options.of("x", "1").fromEnv(Map.of("SPITE_ADDRESS", "a:1",
                "SPITE_TOKEN", "t", "SPITE_CONNECT_TIMEOUT", "-1")));

        assertEquals(42, Spite.botSeed(Map.of("SPITE_BOT_SEED", "42")));
        assertEquals(0, Spite.botSeed(Map.of()));
        assertEquals(Spite.botSeed(Map.of("SPITE_BOT_SEED", "abc")), Spite.botSeed(Map.of("SPITE_BOT_SEED", "abc")));
    }

    @Test
    void aBadAddressIsAConfigError() {
        ConfigException error = assertThrows(ConfigException.class, () -> Spite.playMatch(new Recorder(),
                Options.of("x", "1").withAddress("unix:relative.sock").withToken("t")));
        assertTrue(error.getMessage().contains("unix:/absolute/path"), error.getMessage());
    }

    @Test
    void refereeRefusesThroughRun() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (FakeReferee referee = FakeReferee.start("unix", dir, stream -> {
            throw Status.ALREADY_EXISTS.withDescription("seat 0 is already connected").asException();
        })) {
            Map<String, String> env = Map.of("SPITE_ADDRESS", referee.address, "SPITE_TOKEN", "t");
            assertEquals(Spite.EXIT_FAILED, Spite.run(new Recorder(), Options.of("x", "1"), env,
                    new PrintStream(err, true, StandardCharsets.UTF_8)));
        }
        String report = err.toString(StandardCharsets.UTF_8);
        assertTrue(report.contains("x: the referee already has a bot on this seat"), report);
        assertTrue(report.contains("(ALREADY_EXISTS: seat 0 is already connected)"), report);
    }

    @Test
    void aRejectedActionIsReportedByDefault() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream saved = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            Bot bot = (observation, decision) -> Move.PASS;
            bot.onResult(new ActionResult(7, List.of(Move.parse("H:9>D0")), 0,
                    Fault.ILLEGAL_MOVE, "illegal move: pass: a discard is legal", 1));
            bot.onResult(new ActionResult(8, List.of(Move.PASS), 0, Fault.NONE, "", 0));
        } finally {
            System.setErr(saved);
        }
        assertEquals("decision 7 rejected: ILLEGAL_MOVE: illegal move: pass: a discard is legal (strikes: 1); "
                + "the referee played H:9>D0 instead" + System.lineSeparator(), err.toString(StandardCharsets.UTF_8));
    }
}
