package org.spitearena.sdk;

import java.time.Duration;

/**
 * The limits on a seat's thinking time.
 *
 * @param decision the time per decision; overruns are paid from the bank
 * @param bank the time per game, per seat, for overruns
 * @param connect the time to connect, and for the seat's first decision of the match
 */
public record TimeControl(Duration decision, Duration bank, Duration connect) {}
