package org.spitearena.sdk;

import java.util.List;
import java.util.Objects;

/**
 * Something that happened in the game, as this seat may see it: another seat's drawn cards
 * and every shuffled order are left out.
 *
 * @param kind what the event records; the other fields' meaning depends on it (see {@link EventKind})
 * @param seat the seat concerned, or -1
 * @param move the move of a {@link EventKind#MOVE}, else {@code null}
 * @param cards the cards shown
 * @param count a count (cards drawn, cards left, turn number)
 * @param pile a pile index (stock or centre pile), or -1
 */
public record Event(EventKind kind, int seat, Move move, List<Integer> cards, int count, int pile) {
    public Event {
        Objects.requireNonNull(kind, "kind");
        cards = List.copyOf(cards);
    }
}
