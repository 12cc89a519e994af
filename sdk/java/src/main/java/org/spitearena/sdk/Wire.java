package org.spitearena.sdk;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The conversions between the wire messages (package {@code org.spitearena.v1}, generated
 * from proto/) and this package's values. The only code that knows the wire's numbering: it
 * keeps 0 of every enum for "unspecified", so its move kinds, sources and event kinds are
 * this package's ordinals plus one ({@code MOVE_KIND_PLAY = 1} is {@link MoveKind#PLAY},
 * {@code SOURCE_HAND = 1} is {@link Source#HAND}).
 *
 * <p>A message that cannot stand for a value (an unspecified move kind, say) is an
 * {@link IllegalArgumentException}.
 */
public final class Wire {
    private static final MoveKind[] KINDS = MoveKind.values();
    private static final Source[] SOURCES = Source.values();
    private static final EventKind[] EVENT_KINDS = EventKind.values();
    private static final Ending[] ENDINGS = Ending.values();
    private static final Fault[] FAULTS = Fault.values();
    private static final Policy[] POLICIES = Policy.values();

    private Wire() {}

    /** The move a wire move stands for. */
    public static Move move(org.spitearena.v1.Move m) {
        int kind = m.getKindValue();
        if (kind == org.spitearena.v1.MoveKind.MOVE_KIND_PASS_VALUE) {
            return Move.PASS;
        }
        if (kind != org.spitearena.v1.MoveKind.MOVE_KIND_PLAY_VALUE
                && kind != org.spitearena.v1.MoveKind.MOVE_KIND_DISCARD_VALUE) {
            throw new IllegalArgumentException("move kind " + kind + " is not PLAY, DISCARD or PASS");
        }
        MoveKind moveKind = KINDS[kind - 1];
        int source = m.getSourceValue();
        if (source < org.spitearena.v1.Source.SOURCE_HAND_VALUE
                || source > org.spitearena.v1.Source.SOURCE_DISCARD_PILE_VALUE) {
            throw new IllegalArgumentException("a " + moveKind + " move needs a source, got " + source);
        }
        Source from = SOURCES[source - 1];
        if (moveKind == MoveKind.DISCARD && from != Source.HAND) {
            throw new IllegalArgumentException("a DISCARD comes from the hand, not " + from);
        }
        int index = from == Source.DISCARD_PILE ? m.getSourceIndex() : 0;
        return new Move(moveKind, from, index, m.getCard(), m.getTarget());
    }

    /** The wire form of a move. */
    public static org.spitearena.v1.Move toWire(Move m) {
        if (m.kind() == MoveKind.PASS) {
            return org.spitearena.v1.Move.newBuilder().setKind(org.spitearena.v1.MoveKind.MOVE_KIND_PASS).build();
        }
        return org.spitearena.v1.Move.newBuilder()
                .setKindValue(m.kind().ordinal() + 1)
                .setSourceValue(m.source().ordinal() + 1)
                .setSourceIndex(m.index())
                .setCard(m.card())
                .setTarget(m.target())
                .build();
    }

    /** The rule set a wire rule set describes. */
    public static RuleSet rules(org.spitearena.v1.RuleSet r) {
        return new RuleSet(r.getName(), r.getVersion(), r.getPlayers(), r.getPartners(), r.getDeck(), r.getDecks(),
                r.getJokersPerDeck(), r.getKingsWild(), r.getStockSize(), r.getHandSize(), r.getCentrePiles(),
                r.getDiscardPiles(), r.getOpenStock(), r.getNoBlock(), r.getCompletedPiles(),
                r.getDrawPileExhausted(), r.getDiscardAces(), r.getScoring(), r.getMatchPoints(), r.getTurnCap(),
                r.getWildRanksList());
    }

    /** The observation a wire observation describes; {@code rules} is the match's (sent once, in Welcome). */
    public static Observation observation(org.spitearena.v1.Observation o, RuleSet rules) {
        List<StockView> stocks = new ArrayList<>(o.getStocksCount());
        for (org.spitearena.v1.StockView s : o.getStocksList()) {
            stocks.add(new StockView(s.getCount(), s.getVisibleList()));
        }
        List<List<Pile>> discardPiles = new ArrayList<>(o.getDiscardPilesCount());
        for (org.spitearena.v1.SeatPiles seat : o.getDiscardPilesList()) {
            discardPiles.add(piles(seat.getPilesList()));
        }
        List<Move> legal = new ArrayList<>(o.getLegalMovesCount());
        for (int i = 0; i < o.getLegalMovesCount(); i++) {
            try {
                legal.add(move(o.getLegalMoves(i)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("legal move " + i + ": " + e.getMessage(), e);
            }
        }
        return new Observation(rules, o.getSeat(), o.getTurn(), o.getToMove(), o.getHandList(), o.getHandSizesList(),
                stocks, discardPiles, piles(o.getCentrePilesList()), o.getDrawPileCount(), o.getSetAsideCount(),
                events(o.getEventsList()), legal);
    }

    /** The events of a wire event list. */
    public static List<Event> events(List<org.spitearena.v1.Event> events) {
        List<Event> out = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            org.spitearena.v1.Event e = events.get(i);
            int kind = e.getKindValue();
            if (kind == org.spitearena.v1.EventKind.EVENT_KIND_UNSPECIFIED_VALUE) {
                throw new IllegalArgumentException("event " + i + " has no kind");
            }
            EventKind eventKind = kind - 1 < EventKind.UNKNOWN.ordinal() ? EVENT_KINDS[kind - 1] : EventKind.UNKNOWN;
            Move move = null;
            if (e.hasMove()) {
                try {
                    move = move(e.getMove());
                } catch (IllegalArgumentException error) {
                    throw new IllegalArgumentException("event " + i + ": " + error.getMessage(), error);
                }
            }
            out.add(new Event(eventKind, e.getSeat(), move, e.getCardsList(), e.getCount(), e.getPile()));
        }
        return out;
    }

    /** The outcome a wire outcome describes; an ending this SDK does not know becomes {@link Ending#UNKNOWN}. */
    public static Outcome outcome(org.spitearena.v1.Outcome o) {
        int ending = o.getEndingValue();
        return new Outcome(ending >= 0 && ending < ENDINGS.length ? ENDINGS[ending] : Ending.UNKNOWN,
                o.getWinnersList(), o.getScoresList(), o.getReason(), o.getOffender());
    }

    /** The terms of the match a wire Welcome carries. */
    public static Welcome welcome(org.spitearena.v1.Welcome w) {
        org.spitearena.v1.TimeControl tc = w.getTimeControl();
        int policy = w.getPolicyValue();
        return new Welcome(w.getSeat(), rules(w.getRules()),
                new TimeControl(Duration.ofMillis(Integer.toUnsignedLong(tc.getDecisionMs())),
                        Duration.ofMillis(Integer.toUnsignedLong(tc.getBankMs())),
                        Duration.ofMillis(Integer.toUnsignedLong(tc.getConnectMs()))),
                w.getGames(), w.getMatchId(), w.getProtocolVersion(), w.getSeatNamesList(),
                policy >= 0 && policy < POLICIES.length ? POLICIES[policy] : Policy.UNSPECIFIED);
    }

    /** The verdict a wire ActionResult carries. */
    public static ActionResult actionResult(org.spitearena.v1.ActionResult r) {
        int faultValue = r.getFaultValue();
        Fault fault = faultValue >= 0 && faultValue < Fault.UNKNOWN.ordinal() ? FAULTS[faultValue] : Fault.UNKNOWN;
        String error = r.getError();
        if (fault != Fault.NONE && error.isEmpty()) {
            error = "fault " + (fault == Fault.UNKNOWN ? faultValue : fault);
        }
        List<Move> applied = new ArrayList<>(r.getAppliedCount());
        for (int i = 0; i < r.getAppliedCount(); i++) {
            try {
                applied.add(move(r.getApplied(i)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("applied move " + i + ": " + e.getMessage(), e);
            }
        }
        return new ActionResult(r.getDecisionId(), applied, r.getDropped(), fault, error, r.getStrikes());
    }

    /** The result a wire MatchOver carries. */
    public static MatchResult matchResult(org.spitearena.v1.MatchOver m) {
        return new MatchResult(m.getPointsList(), m.getWinsList(), m.getWinnersList(), m.getReason());
    }

    /**
     * The Action answering decision {@code id} with {@code choice}; {@code legalMoves} is the
     * number of legal moves (to resolve a negative index).
     *
     * @throws IllegalArgumentException for no choice, or an index before the first legal move
     */
    public static org.spitearena.v1.Action action(long id, Choice choice, int legalMoves) {
        org.spitearena.v1.Action.Builder action = org.spitearena.v1.Action.newBuilder().setDecisionId(id);
        boolean noted = false;
        while (choice instanceof Choice.Noted note) {
            if (!noted) {
                action.setDebug(cutUtf8(note.debug(), Spite.MAX_DEBUG_BYTES));
                noted = true;
            }
            choice = note.choice();
        }
        if (choice == null) {
            throw new IllegalArgumentException("decide returned no choice (null)");
        } else if (choice instanceof Move move) {
            action.setMove(toWire(move));
        } else if (choice instanceof Plan plan) {
            org.spitearena.v1.Plan.Builder wire = org.spitearena.v1.Plan.newBuilder();
            for (Move move : plan.moves()) {
                wire.addMoves(toWire(move));
            }
            action.setPlan(wire);
        } else if (choice instanceof Choice.Index index) {
            int i = index.value() < 0 ? index.value() + legalMoves : index.value();
            if (i < 0) {
                throw new IllegalArgumentException("decide returned Choice.index(" + index.value()
                        + "), outside the " + legalMoves + " legal moves");
            }
            action.setMoveIndex(i);
        }
        return action.build();
    }

    /**
     * At most {@code limit} bytes of {@code text} in UTF-8, never cut inside a character (an
     * unpaired surrogate becomes U+FFFD, as the encoder would write it).
     */
    static String cutUtf8(String text, int limit) {
        StringBuilder out = new StringBuilder(Math.min(text.length(), limit));
        int bytes = 0;
        for (int i = 0; i < text.length(); ) {
            int c = text.codePointAt(i);
            i += Character.charCount(c);
            if (c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE) {
                c = 0xFFFD;
            }
            int size = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
            if (bytes + size > limit) {
                break;
            }
            bytes += size;
            out.appendCodePoint(c);
        }
        return out.toString();
    }

    private static List<Pile> piles(List<org.spitearena.v1.Pile> wire) {
        List<Pile> out = new ArrayList<>(wire.size());
        for (org.spitearena.v1.Pile p : wire) {
            out.add(new Pile(p.getCardsList()));
        }
        return out;
    }
}
