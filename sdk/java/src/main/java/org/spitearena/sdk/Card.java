package org.spitearena.sdk;

import java.util.Locale;

/**
 * Cards are ranks, plain {@code int}s from 0 to 13. Suits never matter in these games, so
 * two cards of the same rank are the same value.
 *
 * <pre>
 * rank  meaning                                       name
 * 0     Joker, or the Skip-Bo wild card               *
 * 1     Ace (Skip-Bo: 1)                              A
 * 2-10  pips                                          2..10
 * 11    Jack (Skip-Bo: 11)                            J
 * 12    Queen (Skip-Bo: 12), completes a centre pile  Q
 * 13    King (Spite and Malice only; wild in most)    K
 * </pre>
 *
 * <p>Whether a rank is wild depends on the rule set: see {@link RuleSet#isWild(int)}.
 */
public final class Card {
    public static final int JOKER = 0;
    public static final int ACE = 1;
    public static final int JACK = 11;
    public static final int QUEEN = 12;
    public static final int KING = 13;

    private Card() {}

    /** The card's short name: {@code *}, {@code A}, {@code 2}..{@code 10}, {@code J}, {@code Q} or {@code K}. */
    public static String name(int card) {
        return switch (card) {
            case JOKER -> "*";
            case ACE -> "A";
            case JACK -> "J";
            case QUEEN -> "Q";
            case KING -> "K";
            default -> Integer.toString(card);
        };
    }

    /**
     * Reads a card name ({@code *}, {@code A}, {@code J}, {@code Q}, {@code K}; also {@code JOKER},
     * {@code W} and {@code SB} for the wild) or a number 0..13. Case and surrounding spaces do
     * not matter.
     *
     * @throws IllegalArgumentException for anything else
     */
    public static int parse(String text) {
        String key = text.strip().toUpperCase(Locale.ROOT);
        switch (key) {
            case "*", "JOKER", "W", "SB":
                return JOKER;
            case "A":
                return ACE;
            case "J":
                return JACK;
            case "Q":
                return QUEEN;
            case "K":
                return KING;
            default:
                break;
        }
        if (!key.isEmpty() && key.length() <= 2 && key.chars().allMatch(c -> c >= '0' && c <= '9')) {
            int rank = Integer.parseInt(key);
            if (rank <= KING) {
                return rank;
            }
        }
        throw new IllegalArgumentException("not a card: \"" + text + "\" (expected *, A, 2..10, J, Q, K or 0..13)");
    }
}
