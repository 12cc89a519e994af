package org.spitearena.sdk;

import io.grpc.Status;
import java.util.Map;

/** The referee refused the bot, or the stream ended before the match was over. */
public final class RefereeException extends SpiteException {
    private static final long serialVersionUID = 1L;

    /** What each status the referee ends a stream with means for the bot's author (referee.proto, rpc Play). */
    private static final Map<Status.Code, String> MEANINGS = Map.of(
            Status.Code.UNAUTHENTICATED, "the referee refused the seat token (check SPITE_TOKEN / SPITE_TOKEN_FILE)",
            Status.Code.ALREADY_EXISTS, "the referee already has a bot on this seat (is a second copy running?)",
            Status.Code.FAILED_PRECONDITION, "the referee does not speak protocol version " + Spite.PROTOCOL_VERSION
                    + " (update the SDK) or refused the seat now",
            Status.Code.INVALID_ARGUMENT, "the referee rejected a message from this bot as malformed",
            Status.Code.RESOURCE_EXHAUSTED, "a message exceeded the " + (Spite.MAX_MESSAGE_BYTES >> 10) + " KiB limit",
            Status.Code.UNAVAILABLE, "the referee is unavailable (not running, or it went away)",
            Status.Code.CANCELLED, "the stream was cancelled (the referee stopped the match or shut down)",
            Status.Code.DEADLINE_EXCEEDED, "the referee's deadline passed",
            Status.Code.UNIMPLEMENTED, "the server at this address is not a Spite Arena referee");

    private final Status.Code code;
    private final String details;
    private final String meaning;

    /**
     * @param code the stream's gRPC status; {@link Status.Code#OK} when the referee closed it without one
     * @param details the referee's own words, if any
     * @param meaning what the status means for the bot's author
     */
    public RefereeException(Status.Code code, String details, String meaning) {
        super(message(code, details, meaning));
        this.code = code;
        this.details = details == null ? "" : details;
        this.meaning = meaning;
    }

    /** The exception for a stream that ended with {@code status} before the match was over. */
    public static RefereeException fromStatus(Status status) {
        if (status.isOk()) {
            return new RefereeException(Status.Code.OK, "", "the referee closed the stream before the match was over");
        }
        String meaning = MEANINGS.getOrDefault(status.getCode(), "the referee ended the stream with an error");
        String details = status.getDescription();
        if (details == null && status.getCause() != null) {
            details = status.getCause().toString();
        }
        return new RefereeException(status.getCode(), details, meaning);
    }

    private static String message(Status.Code code, String details, String meaning) {
        if (code == Status.Code.OK) {
            return meaning;
        }
        return meaning + " (" + code + ": " + (details == null || details.isEmpty() ? "no details" : details) + ")";
    }

    /** The stream's gRPC status code ({@link Status.Code#OK} when it closed without one). */
    public Status.Code code() {
        return code;
    }

    /** The referee's own words, if any. */
    public String details() {
        return details;
    }

    /** What the status means for the bot's author. */
    public String meaning() {
        return meaning;
    }
}
