package org.spitearena.sdk;

/**
 * The referee's stream of frames cannot be read: a size over the cap, a size varint over 10
 * bytes, a frame cut short, bytes that are no RefereeMessage.
 */
public final class FrameException extends SpiteException {
    private static final long serialVersionUID = 1L;

    public FrameException(String why) {
        super("the referee's frames are unreadable: " + why);
    }
}
