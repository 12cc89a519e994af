package org.spitearena.sdk;

import org.spitearena.v1.BotMessage;
import org.spitearena.v1.RefereeMessage;

/**
 * What a {@link Session} plays on: a gRPC Play stream ({@link GrpcStream}), or protobuf frames
 * on the referee's pipes ({@link PipeStream}). Used from the session's one thread.
 */
interface RefereeStream {
    /** A message from the referee, and when it arrived ({@link System#nanoTime}). */
    record Arrival(RefereeMessage message, long nanos) {}

    /** Sends one message to the referee. */
    void send(BotMessage message) throws SpiteException;

    /**
     * The referee's next message; a {@link RefereeException} when the stream ended (with the
     * status it ended with), a {@link FrameException} for frames that cannot be read.
     */
    Arrival receive() throws SpiteException, InterruptedException;

    /** The match is over: half-close, and give the referee a moment to end the stream itself. */
    void finish() throws InterruptedException;

    /** The bot stopped before the match was over. */
    void cancel();
}
