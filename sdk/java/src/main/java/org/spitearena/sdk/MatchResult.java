package org.spitearena.sdk;

import java.util.List;

/**
 * The result of the whole match.
 *
 * @param points points per seat over the match
 * @param wins games won per seat
 * @param winners the seats that won the match (both partners of a team); empty for a tie
 * @param reason one sentence, e.g. "seat 1 won the match (0-1)"
 */
public record MatchResult(List<Integer> points, List<Integer> wins, List<Integer> winners, String reason) {
    public MatchResult {
        points = List.copyOf(points);
        wins = List.copyOf(wins);
        winners = List.copyOf(winners);
    }
}
