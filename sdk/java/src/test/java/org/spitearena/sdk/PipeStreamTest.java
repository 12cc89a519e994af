package org.spitearena.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.spitearena.v1.BotMessage;
import org.spitearena.v1.DecisionRequest;
import org.spitearena.v1.MatchOver;
import org.spitearena.v1.RefereeMessage;
import org.spitearena.v1.Refusal;

/**
 * Protobuf frames on the referee's pipes: frames split every which way, the same hostile
 * streams as the Python and Go SDKs' (tests/referee/test_stdio_frames.py,
 * sdk/go/spite/frames_test.go), and whole sessions through {@link Spite#playPipes}.
 */
class PipeStreamTest {
    static byte[] varint(long n) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while ((n & ~0x7fL) != 0) {
            out.write((int) (n & 0x7f) | 0x80);
            n >>>= 7;
        }
        out.write((int) n);
        return out.toByteArray();
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    static byte[] repeat(int b, int n) {
        byte[] bytes = new byte[n];
        Arrays.fill(bytes, (byte) b);
        return bytes;
    }

    static byte[] frame(RefereeMessage message) {
        return concat(varint(message.getSerializedSize()), message.toByteArray());
    }

    /** {@code data}, at most {@code piece} bytes per read. */
    static InputStream inPieces(byte[] data, int piece) {
        return new FilterInputStream(new ByteArrayInputStream(data)) {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return super.read(b, off, Math.min(len, piece));
            }
        };
    }

    /** The BotMessages in {@code data}, a bot's frames. */
    static List<BotMessage> botMessages(byte[] data) throws IOException {
        List<BotMessage> messages = new ArrayList<>();
        ByteArrayInputStream in = new ByteArrayInputStream(data);
        BotMessage message;
        while ((message = BotMessage.parseDelimitedFrom(in)) != null) {
            messages.add(message);
        }
        return messages;
    }

    @Test
    void readsTheRefereesFramesBackWholeAndInOrderHoweverTheReadsSplitThem() throws Exception {
        List<RefereeMessage> messages = new ArrayList<>();
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        for (int i = 0; i < 40; i++) {
            DecisionRequest.Builder decision = DecisionRequest.newBuilder().setDecisionId((long) i << (i % 60))
                    .setDeadlineMs(1000);
            for (int k = 0; k < i * 50; k++) {
                decision.addPackedLegalMoves(k);
            }
            RefereeMessage message = RefereeMessage.newBuilder().setDecision(decision).build();
            messages.add(message);
            data.writeBytes(frame(message));
        }
        for (int piece : new int[] {1, 2, 3, 7, 64, 4096}) {
            PipeStream stream = new PipeStream(inPieces(data.toByteArray(), piece), new ByteArrayOutputStream());
            for (RefereeMessage want : messages) {
                assertEquals(want, stream.receive().message(), "pieces of " + piece);
            }
            RefereeException end = assertThrows(RefereeException.class, stream::receive);
            assertEquals("the referee closed the bot's stdin before the match was over", end.getMessage());
        }
    }

    static Stream<Arguments> hostile() {
        return Stream.of(
                Arguments.of(varint(1L << 40), "a frame of 1099511627776 bytes, over 64 KiB"),
                Arguments.of(concat(varint(65537), new byte[10]), "a frame of 65537 bytes, over 64 KiB"),
                Arguments.of(concat(repeat(0x80, 10), new byte[] {1}), "a frame length over 10 bytes"),
                Arguments.of(repeat(0xff, 9), "a frame length cut short"),
                Arguments.of(concat(varint(100), repeat(0x08, 10)),
                        "a frame cut short by the end of the stream (10 of 100 bytes)"),
                Arguments.of(concat(varint(4), repeat(0xff, 4)), "a frame of 4 bytes is not a RefereeMessage"));
    }

    @ParameterizedTest
    @MethodSource("hostile")
    void refusesAnUnreadableStreamWithItsReasonInOneLine(byte[] data, String words) {
        for (int piece : new int[] {1, 3, 1 << 16}) {
            PipeStream stream = new PipeStream(inPieces(data, piece), new ByteArrayOutputStream());
            FrameException error = assertThrows(FrameException.class, stream::receive);
            assertTrue(error.getMessage().startsWith("the referee's frames are unreadable: "), error.getMessage());
            assertTrue(error.getMessage().contains(words), error.getMessage());
            assertFalse(error.getMessage().contains("\n"), error.getMessage());
        }
    }

    @Test
    void readsAFrameOfExactlyTheCapAsAMessage() throws Exception {
        RefereeMessage message = null;
        for (int n = Spite.MAX_MESSAGE_BYTES; n > 0; n--) {
            message = RefereeMessage.newBuilder().setWelcome(org.spitearena.v1.Welcome.newBuilder()
                    .setMatchId("x".repeat(n))).build();
            if (message.getSerializedSize() == Spite.MAX_MESSAGE_BYTES) {
                break;
            }
        }
        assertEquals(Spite.MAX_MESSAGE_BYTES, message.getSerializedSize());
        PipeStream stream = new PipeStream(new ByteArrayInputStream(frame(message)), new ByteArrayOutputStream());
        assertEquals(message, stream.receive().message());
    }

    @Test
    void playsAMatchOnFramesAnsweringEachDecision() throws Exception {
        byte[] data = concat(
                frame(RefereeMessage.newBuilder().setWelcome(org.spitearena.v1.Welcome.newBuilder()
                        .setSeat(1).setRules(SpiteTest.RULES).setProtocolVersion(1).setGames(1)).build()),
                frame(RefereeMessage.newBuilder().setDecision(DecisionRequest.newBuilder()
                        .setDecisionId(41).setDeadlineMs(1500)
                        .setObservation(org.spitearena.v1.Observation.newBuilder().setSeat(1).setToMove(1)
                                .addLegalMoves(SpiteTest.wire("H:3>C0")).addLegalMoves(SpiteTest.wire("H:9>D0"))))
                        .build()),
                frame(RefereeMessage.newBuilder().setMatchOver(MatchOver.newBuilder()
                        .addPoints(0).addPoints(1).setReason("seat 1 won")).build()));
        SpiteTest.Recorder bot = new SpiteTest.Recorder();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        MatchResult result = Spite.playPipes(bot, Options.of("pipe-bot", "1.2.3"), inPieces(data, 5), out);
        assertEquals("seat 1 won", result.reason());
        List<BotMessage> sent = botMessages(out.toByteArray());
        assertEquals(2, sent.size(), sent.toString());
        assertEquals("pipe-bot", sent.get(0).getHello().getName());
        assertEquals("1.2.3", sent.get(0).getHello().getVersion());
        assertEquals("", sent.get(0).getHello().getToken());
        assertEquals(41, sent.get(1).getAction().getDecisionId());
        assertEquals(1, sent.get(1).getAction().getMoveIndex()); // index -1: the last of two
        assertEquals("last", sent.get(1).getAction().getDebug());
    }

    @Test
    void reportsARefusalFrameAsTheRefereeExceptionItsCodeMeans() throws Exception {
        byte[] data = frame(RefereeMessage.newBuilder().setRefusal(Refusal.newBuilder()
                .setCode("UNAUTHENTICATED").setMessage("unknown or expired seat token")).build());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RefereeException error = assertThrows(RefereeException.class, () -> Spite.playPipes(
                new SpiteTest.Recorder(), Options.of("b", "1").withToken("tok"), new ByteArrayInputStream(data), out));
        assertEquals("the referee refused the seat token (check SPITE_TOKEN / SPITE_TOKEN_FILE) "
                + "(UNAUTHENTICATED: unknown or expired seat token)", error.getMessage());
        assertEquals("tok", botMessages(out.toByteArray()).get(0).getHello().getToken());
    }

    @Test
    void runSaysInOneLineThatItDoesNotSpeakJsonLines() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Spite.run(new SpiteTest.Recorder(), Options.of("b", "1"), Map.of("SPITE_STDIO", "json"),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(Spite.EXIT_CONFIG, status);
        String text = err.toString(StandardCharsets.UTF_8);
        assertEquals(1, text.strip().lines().count(), text);
        assertTrue(text.contains("stdio_format = \"protobuf\""), text);
    }
}
