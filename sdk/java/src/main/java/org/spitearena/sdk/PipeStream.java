package org.spitearena.sdk;

import com.google.protobuf.InvalidProtocolBufferException;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.spitearena.v1.BotMessage;
import org.spitearena.v1.RefereeMessage;

/**
 * Protobuf frames on the referee's pipes (docs/protocol.md, "Protobuf frames"): a bot whose
 * manifest says {@code transport = "stdio"} and {@code stdio_format = "protobuf"} is started by
 * the referee with {@code SPITE_STDIO=protobuf} and no address, and exchanges the same messages
 * as on gRPC, each one its size as a varint, then its protobuf bytes: BotMessages on stdout,
 * RefereeMessages on stdin. {@link Spite#run} plays that way by itself when
 * {@code SPITE_STDIO=protobuf}.
 *
 * <p>Reads and writes block, on the session's own thread: a decision costs one {@code read(2)}
 * and one {@code write(2)}, with no thread hand-off.
 */
final class PipeStream implements RefereeStream {
    /** The environment variable the referee starts a stdio bot with: its manifest's stdio_format. */
    static final String STDIO_VARIABLE = "SPITE_STDIO";
    /** The only stdio format this SDK speaks. */
    static final String FORMAT = "protobuf";
    /** The longest varint a frame's size may take (a 64-bit value). */
    static final int MAX_VARINT_BYTES = 10;

    private final InputStream in;
    private final OutputStream out;

    PipeStream(InputStream in, OutputStream out) {
        this.in = in instanceof BufferedInputStream ? in : new BufferedInputStream(in, 1 << 16);
        this.out = out instanceof BufferedOutputStream ? out : new BufferedOutputStream(out, 1 << 12);
    }

    /**
     * The process's stdin and stdout. {@link System#out} goes to stderr from now on, so that a
     * bot's {@code System.out.println} lands in its log instead of between two frames. (A child
     * process that inherits descriptor 1 still writes into the frames.)
     */
    static PipeStream fromStdio() {
        System.out.flush();
        System.setOut(System.err);
        return new PipeStream(new FileInputStream(FileDescriptor.in), new FileOutputStream(FileDescriptor.out));
    }

    @Override
    public void send(BotMessage message) throws RefereeException {
        try {
            message.writeDelimitedTo(out);
            out.flush();
        } catch (IOException e) {
            throw new RefereeException(io.grpc.Status.Code.UNAVAILABLE, e.getMessage(),
                    "the referee stopped reading the bot's stdout (its session is over)");
        }
    }

    @Override
    public Arrival receive() throws SpiteException {
        byte[] body;
        try {
            body = readFrame(in);
        } catch (IOException e) {
            throw new RefereeException(io.grpc.Status.Code.UNAVAILABLE, e.getMessage(),
                    "reading the referee's frames failed");
        }
        long arrived = System.nanoTime();
        if (body == null) {
            throw new RefereeException(io.grpc.Status.Code.OK, "",
                    "the referee closed the bot's stdin before the match was over");
        }
        try {
            return new Arrival(RefereeMessage.parseFrom(body), arrived);
        } catch (InvalidProtocolBufferException e) {
            throw new FrameException("a frame of " + body.length + " bytes is not a RefereeMessage ("
                    + e.getMessage().lines().findFirst().orElse("") + ")");
        }
    }

    /** Nothing to wait for: the referee closes the pipes when the session is over. */
    @Override
    public void finish() {}

    @Override
    public void cancel() {}

    /** One frame's bytes, its size checked before any of it is read; null at the end of the stream between frames. */
    static byte[] readFrame(InputStream in) throws IOException, FrameException {
        long size = 0;
        for (int i = 0; ; i++) {
            if (i == MAX_VARINT_BYTES) {
                throw new FrameException("a frame length over " + MAX_VARINT_BYTES + " bytes");
            }
            int b = in.read();
            if (b < 0) {
                if (i == 0) {
                    return null;
                }
                throw new FrameException("a frame length cut short");
            }
            if (i == MAX_VARINT_BYTES - 1 && b > 1 && b < 0x80) {
                throw new FrameException("a frame length over 64 bits");
            }
            size |= (long) (b & 0x7f) << (7 * i);
            if (b < 0x80) {
                break;
            }
        }
        if (Long.compareUnsigned(size, Spite.MAX_MESSAGE_BYTES) > 0) {
            throw new FrameException("a frame of " + Long.toUnsignedString(size) + " bytes, over "
                    + (Spite.MAX_MESSAGE_BYTES >> 10) + " KiB");
        }
        byte[] body = in.readNBytes((int) size);
        if (body.length < size) {
            throw new FrameException("a frame cut short by the end of the stream (" + body.length + " of " + size
                    + " bytes)");
        }
        return body;
    }
}
