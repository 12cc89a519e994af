package org.spitearena.sdk;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One move: where a card comes from, which card, and where it goes. Moves are values:
 * two moves are {@code equals} when every field is.
 *
 * <p>Its text notation ({@link #toString()}, {@link #parse(String)}):
 *
 * <pre>
 * H:7&gt;C0    play the hand's 7 on centre pile 0
 * S:K&gt;C2    play the stock's top King on centre pile 2
 * D1:Q&gt;C3   play discard pile 1's top Queen on centre pile 3
 * H:9&gt;D0    discard the hand's 9 on discard pile 0 (ends the turn)
 * pass      end the turn without discarding
 * </pre>
 *
 * @param kind what the move does
 * @param source where the card comes from: {@link Source#HAND} for every discard, and for a pass
 * @param index the discard pile the card comes from when the source is
 *     {@link Source#DISCARD_PILE}, else 0
 * @param card the card moved (a rank, see {@link Card}); 0 for a pass
 * @param target the centre pile for a play, the mover's discard pile for a discard, 0 for a pass
 */
public record Move(MoveKind kind, Source source, int index, int card, int target) implements Choice {

    /** The one pass move. */
    public static final Move PASS = new Move(MoveKind.PASS, Source.HAND, 0, 0, 0);

    private static final Pattern NOTATION =
            Pattern.compile("^(H|S|D\\d)\\s*:\\s*(\\*|[A-Z]+|\\d{1,2})\\s*>\\s*([CD])(\\d)$");

    public Move {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(source, "source");
    }

    /** Plays {@code card} from the hand or the stock onto centre pile {@code centrePile}. */
    public static Move play(Source source, int card, int centrePile) {
        return new Move(MoveKind.PLAY, source, 0, card, centrePile);
    }

    /** Plays the top {@code card} of discard pile {@code pile} onto centre pile {@code centrePile}. */
    public static Move playFromDiscardPile(int pile, int card, int centrePile) {
        return new Move(MoveKind.PLAY, Source.DISCARD_PILE, pile, card, centrePile);
    }

    /** Discards the hand's {@code card} onto discard pile {@code pile}. */
    public static Move discard(int card, int pile) {
        return new Move(MoveKind.DISCARD, Source.HAND, 0, card, pile);
    }

    /** The move's notation, e.g. {@code H:7>C0}, {@code D1:Q>C3}, {@code H:9>D0} or {@code pass}. */
    @Override
    public String toString() {
        if (kind == MoveKind.PASS) {
            return "pass";
        }
        String from = switch (source) {
            case HAND -> "H";
            case STOCK -> "S";
            case DISCARD_PILE -> "D" + index;
        };
        return from + ":" + Card.name(card) + ">" + (kind == MoveKind.PLAY ? "C" : "D") + target;
    }

    /**
     * Reads the notation of {@link #toString()} ({@code H:7>C0}, {@code S:K>C2}, {@code D1:Q>C3},
     * {@code H:9>D0}, {@code pass}). Case and spaces around the punctuation do not matter.
     *
     * @throws IllegalArgumentException for text that is not a move
     */
    public static Move parse(String text) {
        String trimmed = text.strip();
        if (trimmed.equalsIgnoreCase("pass")) {
            return PASS;
        }
        Matcher parts = NOTATION.matcher(trimmed.toUpperCase(Locale.ROOT));
        if (!parts.matches()) {
            String shown = text.length() > 40 ? text.substring(0, 40) + "..." : text;
            throw new IllegalArgumentException(
                    "not a move: \"" + shown + "\" (expected e.g. H:7>C0, S:K>C1, D2:Q>C3, H:9>D0, pass)");
        }
        String source = parts.group(1);
        int card = Card.parse(parts.group(2));
        int target = Integer.parseInt(parts.group(4));
        if (parts.group(3).equals("D")) {
            if (!source.equals("H")) {
                throw new IllegalArgumentException("\"" + text + "\": only hand cards may be discarded");
            }
            return discard(card, target);
        }
        return switch (source) {
            case "H" -> play(Source.HAND, card, target);
            case "S" -> play(Source.STOCK, card, target);
            default -> playFromDiscardPile(Integer.parseInt(source.substring(1)), card, target);
        };
    }
}
