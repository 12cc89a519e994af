package org.spitearena.sdk;

import java.time.Duration;

/**
 * The terms of one decision. Times are measured on {@link System#nanoTime()} from when the
 * request arrived, so they leave out the network: keep a margin.
 *
 * @param id the decision's id; the SDK echoes it in the answer
 * @param game the game's number within the match, from 0
 * @param receivedNanos when the request arrived ({@link System#nanoTime()})
 * @param limit the decision's own time: after it the time bank is drawn on
 * @param bank the time left in this game's time bank
 */
public record Decision(long id, int game, long receivedNanos, Duration limit, Duration bank) {

    /** When the decision's own time runs out ({@link System#nanoTime()}). */
    public long deadlineNanos() {
        return receivedNanos + limit.toNanos();
    }

    /** When the decision times out, its time bank spent too ({@link System#nanoTime()}). */
    public long finalDeadlineNanos() {
        return deadlineNanos() + bank.toNanos();
    }

    /** The time left before the deadline (zero once it has passed). */
    public Duration remaining() {
        return Duration.ofNanos(Math.max(0, deadlineNanos() - System.nanoTime()));
    }

    /** The time left before the decision times out, the bank included (zero once it has passed). */
    public Duration remainingWithBank() {
        return Duration.ofNanos(Math.max(0, finalDeadlineNanos() - System.nanoTime()));
    }

    /** Whether the decision's own time has run out (an answer now is paid from the bank). */
    public boolean pastDeadline() {
        return System.nanoTime() - deadlineNanos() >= 0;
    }
}
