package org.spitearena.sdk;

import java.util.List;

/**
 * A bot chooses moves. {@link #decide} is the only method a bot must have, so a lambda is a
 * bot; the hooks ({@code on...}) do nothing unless overridden (but {@link #onResult} reports
 * rejected actions on stderr).
 *
 * <p>Every call comes from the one thread that called {@link Spite#run} or
 * {@link Spite#playMatch}, in the order of the referee's messages: a bot needs no locking,
 * and the time {@code decide} takes is its thinking time, nothing added. (On a ladder, with
 * several games at once, the calls come from the games' threads, one at a time: see
 * {@link #fresh}.)
 */
@FunctionalInterface
public interface Bot {

    /**
     * Chooses what to do about {@code observation}, whose legal moves are not empty.
     *
     * @param decision the decision's terms: {@link Decision#remaining()} is the time left before
     *     the time bank is drawn on, {@link Decision#remainingWithBank()} before a timeout
     * @return a {@link Move}, a {@link Plan} or a {@link Choice#index(int)}, optionally
     *     {@link Choice#withDebug with a note}
     * @throws Exception to stop the bot: the referee counts that as a crash
     */
    Choice decide(Observation observation, Decision decision) throws Exception;

    /** The referee accepted the bot: seat, rules, time control, games, policy. */
    default void onWelcome(Welcome welcome) {}

    /** A game begins: the bot's opening view (its hand; no legal moves yet). */
    default void onGameStart(int game, Observation observation) {}

    /** Events between decisions (they also arrive in the next observation's {@code events}). */
    default void onEvents(int game, List<Event> events) {}

    /** The referee's verdict on an action. By default a rejected action is reported on stderr. */
    default void onResult(ActionResult result) {
        if (!result.ok()) {
            System.err.println(result.describe());
        }
    }

    /** A game ended. */
    default void onGameOver(int game, Outcome outcome) {}

    /** The match ended; {@link Spite#playMatch} returns right after. */
    default void onMatchOver(MatchResult result) {}

    /**
     * On a ladder ({@link Ladder}): a new bot, as this one is now, to play one game on. The
     * ladder takes one before the first game and plays every game on a copy of that, so that
     * games, at once or one after another, never see each other's state. {@code null} (the
     * default): every game plays on this one bot, its calls from the games in flight made one
     * at a time (fine for a bot without state between calls, such as a lambda).
     */
    default Bot fresh() {
        return null;
    }
}
