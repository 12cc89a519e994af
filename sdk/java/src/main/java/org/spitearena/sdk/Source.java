package org.spitearena.sdk;

/** Where a played card comes from (engine numbering: HAND=0, STOCK=1, DISCARD_PILE=2). */
public enum Source {
    /** The mover's hand: the source of every discard (and, unused, of a pass). */
    HAND,
    /** The top card of the mover's stock (its team's stock with partners). */
    STOCK,
    /** The top card of one of the mover's discard piles ({@link Move#index()}). */
    DISCARD_PILE
}
