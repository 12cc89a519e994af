package org.spitearena.sdk;

import java.util.List;
import java.util.OptionalInt;

/**
 * A stock as everyone sees it.
 *
 * @param count cards left in the stock
 * @param visible the face-up cards, top first: one, or up to three with open-stock; only the
 *     top one is playable
 */
public record StockView(int count, List<Integer> visible) {
    public StockView {
        visible = List.copyOf(visible);
    }

    /** The playable card, or empty for an empty stock. */
    public OptionalInt top() {
        return visible.isEmpty() ? OptionalInt.empty() : OptionalInt.of(visible.get(0));
    }
}
