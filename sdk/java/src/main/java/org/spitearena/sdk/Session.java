package org.spitearena.sdk;

import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.spitearena.v1.BotMessage;
import org.spitearena.v1.DecisionRequest;
import org.spitearena.v1.Hello;
import org.spitearena.v1.RefereeMessage;

/**
 * One match on one {@link RefereeStream}: each of the referee's messages becomes the bot's
 * calls, each choice an Action, all on the thread that called {@link #play}.
 */
final class Session {
    private final Bot bot;
    private final Log log;
    private final RefereeStream stream;
    private RuleSet rules;

    Session(Bot bot, Log log, RefereeStream stream) {
        this.bot = bot;
        this.log = log;
        this.stream = stream;
    }

    /** Sends the hello, plays the match to its MatchOver, and half-closes the stream. */
    MatchResult play(Hello hello) throws SpiteException, InterruptedException {
        boolean finished = false;
        try {
            stream.send(BotMessage.newBuilder().setHello(hello).build());
            MatchResult result = loop();
            finished = true;
            stream.finish();
            return result;
        } finally {
            if (!finished) {
                stream.cancel();
            }
        }
    }

    private MatchResult loop() throws SpiteException, InterruptedException {
        boolean verbose = log.enabled(Options.LogLevel.DEBUG);
        while (true) {
            RefereeStream.Arrival arrival = stream.receive();
            RefereeMessage message = arrival.message();
            switch (message.getBodyCase()) {
                case DECISION -> decide(message.getDecision(), arrival.nanos(), verbose);
                case RESULT -> {
                    ActionResult result = protocol(() -> Wire.actionResult(message.getResult()));
                    if (verbose && result.dropped() > 0) {
                        log.debug("decision " + result.decisionId() + ": " + result.dropped() + " plan moves dropped");
                    }
                    hook("onResult", () -> bot.onResult(result));
                }
                case EVENTS -> {
                    List<Event> events = protocol(() -> Wire.events(message.getEvents().getEventsList()));
                    hook("onEvents", () -> bot.onEvents(message.getEvents().getGameNumber(), events));
                }
                case GAME_START -> {
                    requireWelcome("GameStart");
                    var start = message.getGameStart();
                    log.info("game " + start.getGameNumber() + " starts; seat " + start.getFirstSeat() + " moves first");
                    Observation observation = protocol(() -> Wire.observation(start.getObservation(), rules));
                    hook("onGameStart", () -> bot.onGameStart(start.getGameNumber(), observation));
                }
                case GAME_OVER -> {
                    Outcome outcome = Wire.outcome(message.getGameOver().getOutcome());
                    log.info("game " + message.getGameOver().getGameNumber() + " over: " + outcome.reason());
                    hook("onGameOver", () -> bot.onGameOver(message.getGameOver().getGameNumber(), outcome));
                }
                case WELCOME -> {
                    Welcome welcome = Wire.welcome(message.getWelcome());
                    if (welcome.protocolVersion() != 0 && welcome.protocolVersion() != Spite.PROTOCOL_VERSION) {
                        log.warn("the referee speaks protocol " + welcome.protocolVersion() + ", this SDK "
                                + Spite.PROTOCOL_VERSION);
                    }
                    rules = welcome.rules();
                    log.info("welcome: seat " + welcome.seat() + " of match " + welcome.matchId() + " ("
                            + rules.name() + ", games: " + welcome.games() + ")");
                    hook("onWelcome", () -> bot.onWelcome(welcome));
                }
                case MATCH_OVER -> {
                    MatchResult result = Wire.matchResult(message.getMatchOver());
                    log.info("match over: " + result.reason());
                    hook("onMatchOver", () -> bot.onMatchOver(result));
                    return result;
                }
                case REFUSAL -> { // stdio's form of a refusal; a gRPC referee ends the stream instead
                    Status.Code code;
                    try {
                        code = Status.Code.valueOf(message.getRefusal().getCode());
                    } catch (IllegalArgumentException e) {
                        code = Status.Code.UNKNOWN;
                    }
                    throw RefereeException.fromStatus(code.toStatus().withDescription(message.getRefusal().getMessage()));
                }
                default -> log.warn("ignoring a message this SDK does not know (a newer referee?)");
            }
        }
    }

    private void decide(DecisionRequest request, long received, boolean verbose)
            throws SpiteException {
        requireWelcome("a DecisionRequest");
        Observation observation = protocol(() -> Wire.observation(request.getObservation(), rules));
        Decision decision = new Decision(request.getDecisionId(), request.getGameNumber(), received,
                Duration.ofMillis(Integer.toUnsignedLong(request.getDeadlineMs())),
                Duration.ofMillis(Integer.toUnsignedLong(request.getBankMs())));
        Choice choice;
        try {
            choice = bot.decide(observation, decision);
        } catch (Exception e) {
            throw new BotException("decide failed on decision " + decision.id() + ": " + e, e);
        }
        org.spitearena.v1.Action action;
        try {
            action = Wire.action(decision.id(), choice, observation.legalMoves().size());
        } catch (IllegalArgumentException e) {
            throw new BotException(e.getMessage(), e);
        }
        stream.send(BotMessage.newBuilder().setAction(action).build());
        if (verbose) {
            log.debug("decision " + decision.id() + ": " + describe(choice, observation) + " in "
                    + (System.nanoTime() - received) / 1000 + " us");
        }
    }

    private void requireWelcome(String what) throws SpiteException {
        if (rules == null) {
            throw new SpiteException("protocol error: " + what + " came before Welcome");
        }
    }

    private interface Conversion<T> {
        T convert();
    }

    private static <T> T protocol(Conversion<T> conversion) throws SpiteException {
        try {
            return conversion.convert();
        } catch (IllegalArgumentException e) {
            throw new SpiteException("protocol error: " + e.getMessage(), e);
        }
    }

    private static void hook(String name, Runnable call) throws BotException {
        try {
            call.run();
        } catch (RuntimeException e) {
            throw new BotException(name + " failed: " + e, e);
        }
    }

    static String describe(Choice choice, Observation observation) {
        if (choice instanceof Choice.Noted noted) {
            return describe(noted.choice(), observation);
        }
        if (choice instanceof Choice.Index index) {
            List<Move> legal = observation.legalMoves();
            int i = index.value() < 0 ? index.value() + legal.size() : index.value();
            return "#" + index.value() + (i >= 0 && i < legal.size() ? " (" + legal.get(i) + ")" : "");
        }
        if (choice instanceof Plan plan) {
            return "plan " + plan.moves().stream().map(Move::toString).collect(Collectors.joining(" "));
        }
        return String.valueOf(choice);
    }
}
