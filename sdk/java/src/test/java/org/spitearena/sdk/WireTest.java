package org.spitearena.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.spitearena.v1.Action;
import org.spitearena.v1.SeatPiles;

/** The conversions between wire messages and SDK values. */
class WireTest {
    private static final org.spitearena.v1.MoveKind PLAY = org.spitearena.v1.MoveKind.MOVE_KIND_PLAY;
    private static final org.spitearena.v1.Source HAND = org.spitearena.v1.Source.SOURCE_HAND;

    static org.spitearena.v1.Move wire(String notation) {
        return Wire.toWire(Move.parse(notation));
    }

    private static org.spitearena.v1.Move.Builder wireMove() {
        return org.spitearena.v1.Move.newBuilder();
    }

    @Test
    void moveNumberingIsTheEnginesPlusOne() {
        List<org.spitearena.v1.Move> wires = List.of(
                wireMove().setKind(PLAY).setSource(HAND).setCard(7).build(),
                wireMove().setKind(PLAY).setSource(org.spitearena.v1.Source.SOURCE_STOCK).setCard(13).setTarget(2).build(),
                wireMove().setKind(PLAY).setSource(org.spitearena.v1.Source.SOURCE_DISCARD_PILE).setSourceIndex(1)
                        .setCard(12).setTarget(3).build(),
                wireMove().setKind(org.spitearena.v1.MoveKind.MOVE_KIND_DISCARD).setSource(HAND).setCard(9).build(),
                wireMove().setKind(org.spitearena.v1.MoveKind.MOVE_KIND_PASS).build());
        List<String> notations = List.of("H:7>C0", "S:K>C2", "D1:Q>C3", "H:9>D0", "pass");
        for (int i = 0; i < wires.size(); i++) {
            Move move = Wire.move(wires.get(i));
            assertEquals(notations.get(i), move.toString());
            assertEquals(wires.get(i), Wire.toWire(move));
        }
        assertEquals(1, PLAY.getNumber());
        assertEquals(0, MoveKind.PLAY.ordinal());
    }

    @Test
    void moveFromWireNormalises() {
        // A source index means something only for a discard-pile source; a pass is only a pass.
        assertEquals(Move.play(Source.HAND, 5, 1),
                Wire.move(wireMove().setKind(PLAY).setSource(HAND).setSourceIndex(3).setCard(5).setTarget(1).build()));
        assertEquals(Move.PASS, Wire.move(wireMove().setKind(org.spitearena.v1.MoveKind.MOVE_KIND_PASS)
                .setSource(org.spitearena.v1.Source.SOURCE_STOCK).setCard(4).build()));
    }

    @Test
    void moveFromWireRejects() {
        for (org.spitearena.v1.Move bad : List.of(
                wireMove().build(),
                wireMove().setKindValue(9).setSource(HAND).build(),
                wireMove().setKind(PLAY).build(),
                wireMove().setKind(PLAY).setSourceValue(7).build(),
                wireMove().setKind(org.spitearena.v1.MoveKind.MOVE_KIND_DISCARD)
                        .setSource(org.spitearena.v1.Source.SOURCE_STOCK).setCard(4).build())) {
            assertThrows(IllegalArgumentException.class, () -> Wire.move(bad), bad::toString);
        }
    }

    @Test
    void observationFromWire() {
        RuleSet rules = Wire.rules(org.spitearena.v1.RuleSet.newBuilder().setName("partners").setPlayers(4)
                .setPartners(true).setCentrePiles(3).setDiscardPiles(4).addWildRanks(0).addWildRanks(13)
                .setHandSize(5).build());
        org.spitearena.v1.Observation.Builder wire = org.spitearena.v1.Observation.newBuilder()
                .setSeat(3).setTurn(12).setToMove(3).addAllHand(List.of(2, 5, 13)).addAllHandSizes(List.of(5, 4, 5, 3))
                .addStocks(org.spitearena.v1.StockView.newBuilder().setCount(20).addVisible(6))
                .addStocks(org.spitearena.v1.StockView.newBuilder().setCount(0))
                .addDiscardPiles(SeatPiles.getDefaultInstance())
                .addDiscardPiles(SeatPiles.getDefaultInstance())
                .addDiscardPiles(SeatPiles.getDefaultInstance())
                .addDiscardPiles(SeatPiles.newBuilder()
                        .addPiles(org.spitearena.v1.Pile.newBuilder().addCards(9).addCards(8))
                        .addPiles(org.spitearena.v1.Pile.getDefaultInstance()))
                .addCentrePiles(org.spitearena.v1.Pile.newBuilder().addCards(1).addCards(2))
                .addCentrePiles(org.spitearena.v1.Pile.getDefaultInstance())
                .addCentrePiles(org.spitearena.v1.Pile.newBuilder().addCards(1))
                .setDrawPileCount(40).setSetAsideCount(2)
                .addEvents(org.spitearena.v1.Event.newBuilder().setKind(org.spitearena.v1.EventKind.EVENT_KIND_TURN)
                        .setSeat(3).setCount(12).setPile(-1))
                .addEvents(org.spitearena.v1.Event.newBuilder().setKind(org.spitearena.v1.EventKind.EVENT_KIND_MOVE)
                        .setSeat(1).setMove(wire("S:3>C0")).setPile(-1))
                .addEvents(org.spitearena.v1.Event.newBuilder().setKind(org.spitearena.v1.EventKind.EVENT_KIND_DRAW)
                        .setSeat(3).addCards(2).addCards(13).setCount(2).setPile(-1))
                .addLegalMoves(wire("H:2>C1")).addLegalMoves(wire("H:K>C0")).addLegalMoves(wire("D0:8>C2"))
                .addLegalMoves(wire("H:5>D1"));
        Observation observation = Wire.observation(wire.build(), rules);
        Observation want = new Observation(rules, 3, 12, 3, List.of(2, 5, Card.KING), List.of(5, 4, 5, 3),
                List.of(new StockView(20, List.of(6)), new StockView(0, List.of())),
                List.of(List.of(), List.of(), List.of(), List.of(Pile.of(9, 8), Pile.of())),
                List.of(Pile.of(1, 2), Pile.of(), Pile.of(1)), 40, 2,
                List.of(new Event(EventKind.TURN, 3, null, List.of(), 12, -1),
                        new Event(EventKind.MOVE, 1, Move.play(Source.STOCK, 3, 0), List.of(), 0, -1),
                        new Event(EventKind.DRAW, 3, null, List.of(2, Card.KING), 2, -1)),
                List.of(Move.parse("H:2>C1"), Move.parse("H:K>C0"), Move.parse("D0:8>C2"), Move.parse("H:5>D1")));
        assertEquals(want, observation);
        assertEquals(0, observation.myStock().count(), "seat 3 plays its team's stock, 1");
        assertEquals(OptionalInt.of(8), observation.myDiscardPiles().get(0).top());
        assertEquals(OptionalInt.empty(), observation.myDiscardPiles().get(1).top());
        assertEquals(OptionalInt.of(6), observation.stocks().get(0).top());
        assertEquals(List.of(3, 1, 2), observation.centreNeeds());
        assertTrue(rules.isWild(Card.KING) && rules.isWild(Card.JOKER) && !rules.isWild(Card.QUEEN));
        assertEquals(2, rules.stocks());
        assertEquals(0, rules.teamOf(2));
        assertThrows(UnsupportedOperationException.class, () -> observation.hand().add(1));

        wire.addLegalMoves(org.spitearena.v1.Move.getDefaultInstance());
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> Wire.observation(wire.build(), rules));
        assertTrue(error.getMessage().startsWith("legal move 4:"), error.getMessage());
    }

    @Test
    void outcomesResultsAndWelcome() {
        Outcome outcome = Wire.outcome(org.spitearena.v1.Outcome.newBuilder()
                .setEnding(org.spitearena.v1.Ending.ENDING_STOCK_EMPTIED).addWinners(0).addWinners(2)
                .addAllScores(List.of(1, 0, 1, 0)).setReason("team 0 emptied its stock").setOffender(-1).build());
        assertEquals(Ending.STOCK_EMPTIED, outcome.ending());
        assertTrue(outcome.ending().byRules());
        assertFalse(outcome.isDraw());
        assertEquals(-1, outcome.offender());
        assertEquals("stock-emptied", outcome.ending().toString());

        Outcome timeout = Wire.outcome(org.spitearena.v1.Outcome.newBuilder()
                .setEnding(org.spitearena.v1.Ending.ENDING_TIMEOUT).setOffender(1).build());
        assertEquals(Ending.TIMEOUT, timeout.ending());
        assertFalse(timeout.ending().byRules());
        assertTrue(timeout.isDraw());
        assertEquals(Ending.UNKNOWN, Wire.outcome(org.spitearena.v1.Outcome.newBuilder().setEndingValue(99).build())
                .ending());

        ActionResult result = Wire.actionResult(org.spitearena.v1.ActionResult.newBuilder().setDecisionId(7)
                .setFault(org.spitearena.v1.Fault.FAULT_TIMEOUT).addApplied(wire("H:9>D0")).setStrikes(1).build());
        assertFalse(result.ok());
        assertEquals(Fault.TIMEOUT, result.fault());
        assertEquals("fault TIMEOUT", result.error());
        assertEquals(List.of(Move.parse("H:9>D0")), result.applied());
        assertEquals(Fault.UNKNOWN, Wire.actionResult(org.spitearena.v1.ActionResult.newBuilder().setFaultValue(42)
                .build()).fault());

        Welcome welcome = Wire.welcome(org.spitearena.v1.Welcome.newBuilder().setSeat(1)
                .setRules(org.spitearena.v1.RuleSet.newBuilder().setName("standard"))
                .setTimeControl(org.spitearena.v1.TimeControl.newBuilder().setDecisionMs(1000).setBankMs(10000)
                        .setConnectMs(250))
                .setPolicy(org.spitearena.v1.Policy.POLICY_SUBSTITUTE).setProtocolVersion(1)
                .addSeatNames("a").addSeatNames("b").build());
        assertEquals(1, welcome.seat());
        assertEquals("standard", welcome.rules().name());
        assertEquals(new TimeControl(Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofMillis(250)),
                welcome.timeControl());
        assertEquals(Policy.SUBSTITUTE, welcome.policy());
        assertEquals(List.of("a", "b"), welcome.seatNames());

        MatchResult match = Wire.matchResult(org.spitearena.v1.MatchOver.newBuilder().addPoints(2).addPoints(1)
                .addWins(2).addWins(1).addWinners(0).build());
        assertEquals(List.of(2, 1), match.points());
        assertEquals(List.of(0), match.winners());
    }

    @Test
    void actionsForEachChoice() {
        Move move = Move.parse("D1:Q>C3");
        assertEquals(Action.newBuilder().setDecisionId(9).setMove(Wire.toWire(move)).build(),
                Wire.action(9, move, 5));
        assertEquals(Action.newBuilder().setDecisionId(9).setMoveIndex(2).build(), Wire.action(9, Choice.index(2), 5));
        assertEquals(Action.newBuilder().setDecisionId(9).setMoveIndex(4).build(), Wire.action(9, Choice.index(-1), 5));
        assertEquals(Action.newBuilder().setDecisionId(9).setPlan(org.spitearena.v1.Plan.newBuilder()
                        .addMoves(wire("S:A>C0")).addMoves(wire("H:2>C0"))).build(),
                Wire.action(9, Plan.of(Move.parse("S:A>C0"), Move.parse("H:2>C0")), 5));
        assertEquals(Action.newBuilder().setDecisionId(9).setDebug("nothing to do").setMove(Wire.toWire(Move.PASS))
                .build(), Wire.action(9, Move.PASS.withDebug("nothing to do"), 5));
        assertEquals(Action.newBuilder().setDecisionId(9).setDebug("outer").setMoveIndex(0).build(),
                Wire.action(9, Choice.index(0).withDebug("inner").withDebug("outer"), 5), "the outer note wins");
        assertThrows(IllegalArgumentException.class, () -> Wire.action(9, null, 5));
        assertThrows(IllegalArgumentException.class, () -> Wire.action(9, Choice.index(-6), 5));
        assertThrows(NullPointerException.class, () -> Move.PASS.withDebug(null));
    }

    @Test
    void debugNotesAreCutToWholeCharacters() {
        String longNote = "é".repeat(200); // 400 bytes
        String debug = Wire.action(1, Move.PASS.withDebug(longNote), 1).getDebug();
        assertEquals(Spite.MAX_DEBUG_BYTES, debug.getBytes(StandardCharsets.UTF_8).length);
        String odd = Wire.cutUtf8("a" + "é".repeat(200), Spite.MAX_DEBUG_BYTES); // the cut falls inside a character
        assertEquals(Spite.MAX_DEBUG_BYTES - 1, odd.getBytes(StandardCharsets.UTF_8).length);
        assertEquals("bad \uFFFD surrogate", Wire.cutUtf8("bad \uD800 surrogate", 100));
        assertEquals("na", Wire.cutUtf8("naïve", 3));
        assertEquals("\uD83C\uDCA1", Wire.cutUtf8("\uD83C\uDCA1\uD83C\uDCA1", 7), "a 4-byte character stays whole");
    }
}
