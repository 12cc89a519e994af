package org.spitearena.sdk;

import java.util.ArrayList;
import java.util.List;

/**
 * One seat's view of a game at one moment: what it may see, nothing else. The SDK builds a
 * new one for each decision; a bot may keep it. Every list is unmodifiable.
 *
 * @param rules the match's rule set
 * @param seat the observing seat
 * @param turn the turn number, from 1
 * @param toMove the seat whose decision it is
 * @param hand the observer's hand, sorted by rank
 * @param handSizes cards in each seat's hand
 * @param stocks each stock: one per seat, or one per team with partners (see {@link #myStock()})
 * @param discardPiles per seat, its discard piles
 * @param centrePiles each centre pile; a pile's rank is its length
 * @param drawPileCount cards in the draw pile (its order is hidden from everyone)
 * @param setAsideCount cards of completed piles waiting to become the draw pile (set-aside rule sets)
 * @param events what happened since this seat's previous decision, its own last move included,
 *     as this seat may see it
 * @param legalMoves the observer's legal moves, in the engine's order, when it is to move; else empty
 */
public record Observation(RuleSet rules, int seat, int turn, int toMove, List<Integer> hand,
                          List<Integer> handSizes, List<StockView> stocks, List<List<Pile>> discardPiles,
                          List<Pile> centrePiles, int drawPileCount, int setAsideCount, List<Event> events,
                          List<Move> legalMoves) {

    public Observation {
        hand = List.copyOf(hand);
        handSizes = List.copyOf(handSizes);
        stocks = List.copyOf(stocks);
        List<List<Pile>> seats = new ArrayList<>(discardPiles.size());
        for (List<Pile> piles : discardPiles) {
            seats.add(List.copyOf(piles));
        }
        discardPiles = List.copyOf(seats);
        centrePiles = List.copyOf(centrePiles);
        events = List.copyOf(events);
        legalMoves = List.copyOf(legalMoves);
    }

    /** The stock this seat plays from. */
    public StockView myStock() {
        return stocks.get(rules.stockOf(seat));
    }

    /** This seat's discard piles. */
    public List<Pile> myDiscardPiles() {
        return discardPiles.get(seat);
    }

    /** The rank each centre pile needs next (1, an Ace, for an empty pile). */
    public List<Integer> centreNeeds() {
        List<Integer> needs = new ArrayList<>(centrePiles.size());
        for (Pile pile : centrePiles) {
            needs.add(pile.size() + 1);
        }
        return List.copyOf(needs);
    }
}
