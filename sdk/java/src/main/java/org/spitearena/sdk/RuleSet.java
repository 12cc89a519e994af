package org.spitearena.sdk;

import java.util.List;

/**
 * Every option of the match's game; the referee sends it once, in {@link Welcome}.
 * docs/rules.md states what each option means.
 *
 * @param name the canonical spec, e.g. "standard", "kings-only+short-15", "skip-bo+4p"
 * @param version bumped whenever the same seed and moves would give another game
 * @param players seats at the table; seats move in order 0, 1, 2, ...
 * @param partners 2 v 2: seats 0 and 2 against seats 1 and 3, one shared stock per team
 * @param deck "spite" (52-card decks plus jokers) or "skip-bo" (12 x 1..12 plus 18 wilds)
 * @param decks decks shuffled together
 * @param jokersPerDeck jokers per 52-card deck
 * @param kingsWild whether Kings are wild (spite deck)
 * @param stockSize cards dealt to each stock
 * @param handSize hands are refilled to this many cards
 * @param centrePiles shared centre piles, built from Ace (1) to Queen (12)
 * @param discardPiles discard piles per seat
 * @param openStock face-up cards on each stock (3 with open-stock); only the top is playable
 * @param noBlock a non-wild card playable on a centre pile now may not be discarded
 * @param completedPiles "shuffle" or "set-aside"
 * @param drawPileExhausted "play-on" or "draw-game"
 * @param discardAces whether Aces (Skip-Bo 1s) may be discarded
 * @param scoring "win" or "stock-left"
 * @param matchPoints 0: games stand alone; N: the match goes on until a seat or team has N points
 * @param turnCap turns after which a game is drawn
 * @param wildRanks ranks that are wild on centre piles, ascending
 */
public record RuleSet(String name, int version, int players, boolean partners, String deck, int decks,
                      int jokersPerDeck, boolean kingsWild, int stockSize, int handSize, int centrePiles,
                      int discardPiles, int openStock, boolean noBlock, String completedPiles,
                      String drawPileExhausted, boolean discardAces, String scoring, int matchPoints, int turnCap,
                      List<Integer> wildRanks) {

    public RuleSet {
        wildRanks = List.copyOf(wildRanks);
    }

    /** Whether {@code card} is wild on the centre piles in this rule set. */
    public boolean isWild(int card) {
        for (int wild : wildRanks) {
            if (wild == card) {
                return true;
            }
        }
        return false;
    }

    /** The number of stocks: one per seat, or one per team with partners. */
    public int stocks() {
        return partners ? 2 : players;
    }

    /** The stock that {@code seat} plays from (its team's with partners). */
    public int stockOf(int seat) {
        return partners ? seat % 2 : seat;
    }

    /** The seat's team: the seat itself, or {@code seat % 2} with partners. */
    public int teamOf(int seat) {
        return stockOf(seat);
    }
}
