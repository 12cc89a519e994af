package org.spitearena.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.spitearena.v1.ArenaGrpc;
import org.spitearena.v1.Assignment;
import org.spitearena.v1.JoinRequest;

/**
 * The ladder's settings, and its Join against a real gRPC server standing in for the lobby
 * (the games themselves: tests/arena/test_remote_languages.py, against a real spite serve).
 */
class LadderTest {

    @Test
    void joinsOnlyWithAnAddressAndAKey() {
        assertTrue(Ladder.requested(Map.of("SPITE_ARENA", "h:1", "SPITE_BOT_KEY", "k")));
        assertEquals(false, Ladder.requested(Map.of("SPITE_ARENA", "h:1", "SPITE_BOT_KEY", " ")));
        assertEquals(false, Ladder.requested(Map.of("SPITE_BOT_KEY", "k")));
    }

    @Test
    void readsTheCapacity() throws ConfigException {
        assertEquals(new Ladder.Settings("h:1", "k", 1),
                Ladder.settings(Map.of("SPITE_ARENA", " h:1 ", "SPITE_BOT_KEY", "k")));
        assertEquals(64, Ladder.settings(Map.of("SPITE_ARENA", "h:1", "SPITE_BOT_KEY", "k",
                "SPITE_ARENA_CAPACITY", "64")).capacity());
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "65", "2.5", "two", "-1"})
    void refusesACapacityOutOfRange(String capacity) {
        ConfigException error = assertThrows(ConfigException.class, () -> Ladder.settings(
                Map.of("SPITE_ARENA", "h:1", "SPITE_BOT_KEY", "k", "SPITE_ARENA_CAPACITY", capacity)));
        assertEquals("SPITE_ARENA_CAPACITY must be a whole number in 1..64", error.getMessage());
    }

    @Test
    void refusesTlsRatherThanSendTheKeyInPlaintext() {
        for (Map<String, String> env : List.of(Map.of("SPITE_ARENA", "tls:h:1", "SPITE_BOT_KEY", "k"),
                Map.of("SPITE_ARENA", "h:1", "SPITE_BOT_KEY", "k", "SPITE_TLS_CA", "ca.pem"))) {
            ConfigException error = assertThrows(ConfigException.class, () -> Ladder.settings(env));
            assertTrue(error.getMessage().contains("plaintext only"), error.getMessage());
        }
    }

    /** A lobby whose first Join ends as a server going away, and whose second refuses the key. */
    @Test
    void joinsAgainAfterAnErrorAndStopsOnARefusal() throws Exception {
        List<JoinRequest> joins = new CopyOnWriteArrayList<>();
        AtomicInteger calls = new AtomicInteger();
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(new ArenaGrpc.ArenaImplBase() {
                    @Override
                    public void join(JoinRequest request, StreamObserver<Assignment> assignments) {
                        joins.add(request);
                        Status status = calls.getAndIncrement() == 0
                                ? Status.UNAVAILABLE.withDescription("the server is stopping")
                                : Status.UNAUTHENTICATED.withDescription("unknown key");
                        assignments.onError(status.asRuntimeException());
                    }
                })
                .build()
                .start();
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
            String address = "127.0.0.1:" + server.getPort();
            int status = Spite.run((observation, decision) -> observation.legalMoves().get(0),
                    Options.of("laddered", "2.0"),
                    Map.of("SPITE_ARENA", address, "SPITE_BOT_KEY", "sk_x", "SPITE_ARENA_CAPACITY", "3"), err);
            assertEquals(Spite.EXIT_FAILED, status);
            assertEquals(List.of("laddered: not joined to the arena at " + address + "; trying again in 1 s",
                    "laddered: the arena refused to let the bot join: unknown key"),
                    bytes.toString(StandardCharsets.UTF_8).lines().toList());
            JoinRequest join = joins.get(0);
            assertEquals(List.of("sk_x", "laddered", "2.0", 3),
                    List.of(join.getKey(), join.getBotName(), join.getBotVersion(), join.getCapacity()));
        } finally {
            server.shutdownNow();
        }
    }
}
