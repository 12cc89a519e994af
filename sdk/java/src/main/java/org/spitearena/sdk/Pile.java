package org.spitearena.sdk;

import java.util.List;
import java.util.OptionalInt;

/** A pile of face-up cards, bottom to top. */
public record Pile(List<Integer> cards) {
    public Pile {
        cards = List.copyOf(cards);
    }

    /** A pile of these cards, bottom to top. */
    public static Pile of(Integer... cards) {
        return new Pile(List.of(cards));
    }

    /** The top card, or empty for an empty pile. */
    public OptionalInt top() {
        return cards.isEmpty() ? OptionalInt.empty() : OptionalInt.of(cards.get(cards.size() - 1));
    }

    public int size() {
        return cards.size();
    }

    public boolean isEmpty() {
        return cards.isEmpty();
    }
}
