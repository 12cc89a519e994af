package org.spitearena.sdk;

import java.util.List;

/**
 * The referee's answer to the bot's hello: its seat and the terms of the match.
 *
 * @param seat this bot's seat
 * @param rules the rule set of every game of the match
 * @param timeControl the limits on thinking time
 * @param games games in the match (with {@code rules.matchPoints()}, the most that will be played)
 * @param matchId the match's id
 * @param protocolVersion the protocol version the referee speaks
 * @param seatNames each seat's bot name, by seat (empty for a seat not yet connected)
 * @param policy what bad behaviour gets
 */
public record Welcome(int seat, RuleSet rules, TimeControl timeControl, int games, String matchId,
                      int protocolVersion, List<String> seatNames, Policy policy) {
    public Welcome {
        seatNames = List.copyOf(seatNames);
    }
}
