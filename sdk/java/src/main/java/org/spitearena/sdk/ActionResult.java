package org.spitearena.sdk;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The referee's verdict on one action.
 *
 * @param decisionId the decision answered
 * @param applied the moves applied for the seat: several for a plan, the fallback move when the
 *     referee substituted one
 * @param dropped plan moves dropped unjudged because new information appeared
 * @param fault {@link Fault#NONE} when the action was accepted as sent
 * @param error why, in words, when a fault is set
 * @param strikes strikes this seat has in the current game (substitute policy)
 */
public record ActionResult(long decisionId, List<Move> applied, int dropped, Fault fault, String error,
                           int strikes) {
    public ActionResult {
        applied = List.copyOf(applied);
    }

    /** Whether the action was accepted as sent. */
    public boolean ok() {
        return fault == Fault.NONE;
    }

    /**
     * One line for a rejected action, e.g. {@code decision 7 rejected: ILLEGAL_MOVE: illegal move:
     * ... (strikes: 1); the referee played H:9>D0 instead}.
     */
    public String describe() {
        StringBuilder line = new StringBuilder("decision ").append(decisionId).append(' ')
                .append(ok() ? "accepted" : "rejected: " + fault + ": " + error);
        if (strikes > 0) {
            line.append(" (strikes: ").append(strikes).append(')');
        }
        if (!ok() && !applied.isEmpty()) {
            line.append("; the referee played ")
                    .append(applied.stream().map(Move::toString).collect(Collectors.joining(", ")))
                    .append(" instead");
        }
        return line.toString();
    }
}
