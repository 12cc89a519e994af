package org.spitearena.sdk;

import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.spitearena.v1.BotMessage;
import org.spitearena.v1.RefereeGrpc;
import org.spitearena.v1.RefereeMessage;

/**
 * A referee for the tests: a real gRPC server (Netty, on a Unix socket or on TCP port 0)
 * whose Play stream is driven by the test's script, on a thread of its own.
 */
final class FakeReferee implements AutoCloseable {

    /** The referee's side of one Play stream, as a script sees it. */
    static final class Stream {
        private static final Object HALF_CLOSED = new Object();
        private final BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        private final StreamObserver<RefereeMessage> responses;
        final Metadata headers;

        Stream(StreamObserver<RefereeMessage> responses, Metadata headers) {
            this.responses = responses;
            this.headers = headers;
        }

        /** The bot's next message; null when the bot half-closed. */
        BotMessage recv() throws Exception {
            Object item = received.poll(10, TimeUnit.SECONDS);
            if (item == null) {
                throw new AssertionError("the bot sent nothing for 10 s");
            }
            if (item instanceof Throwable error) {
                throw new AssertionError("the bot's stream failed: " + error, error);
            }
            return item == HALF_CLOSED ? null : (BotMessage) item;
        }

        void send(RefereeMessage message) {
            responses.onNext(message);
        }

        void send(RefereeMessage.Builder message) {
            responses.onNext(message.build());
        }
    }

    /** What the referee does with one stream; returning ends it OK, a StatusException with that status. */
    interface Script {
        void play(Stream stream) throws Exception;
    }

    static {
        Connection.CHANNEL_OPTIONS.getName(); // the server's sockets: the same warning, muted the same way
    }

    private final Server server;
    private final EventLoopGroup group;
    final String address;

    private FakeReferee(Server server, EventLoopGroup group, String address) {
        this.server = server;
        this.group = group;
        this.address = address;
    }

    /** A referee on a Unix socket in {@code dir} ("unix") or on 127.0.0.1 port 0 ("tcp"). */
    static FakeReferee start(String network, Path dir, Script script) throws IOException {
        ThreadLocal<Metadata> headers = new ThreadLocal<>();
        RefereeGrpc.RefereeImplBase service = new RefereeGrpc.RefereeImplBase() {
            @Override
            public StreamObserver<BotMessage> play(StreamObserver<RefereeMessage> responses) {
                Stream stream = new Stream(responses, headers.get());
                Thread thread = new Thread(() -> {
                    try {
                        script.play(stream);
                        responses.onCompleted();
                    } catch (io.grpc.StatusException e) {
                        responses.onError(e);
                    } catch (Throwable e) {
                        responses.onError(Status.INTERNAL.withDescription("script failed: " + e).asException());
                    }
                }, "fake-referee");
                thread.setDaemon(true);
                thread.start();
                return new StreamObserver<>() {
                    @Override
                    public void onNext(BotMessage message) {
                        stream.received.add(message);
                    }

                    @Override
                    public void onError(Throwable error) {
                        stream.received.add(error);
                    }

                    @Override
                    public void onCompleted() {
                        stream.received.add(Stream.HALF_CLOSED);
                    }
                };
            }
        };
        ServerInterceptor capture = new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata metadata,
                                                               ServerCallHandler<Q, R> next) {
                headers.set(metadata); // the handler's play() runs on this thread, just after
                try {
                    return next.startCall(call, metadata);
                } finally {
                    headers.remove();
                }
            }
        };
        NettyServerBuilder builder;
        EventLoopGroup group = null;
        String address;
        if (network.equals("unix")) {
            Path socket = dir.resolve("referee.sock");
            group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
            builder = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                    .bossEventLoopGroup(group).workerEventLoopGroup(group)
                    .channelType(EpollServerDomainSocketChannel.class);
            address = "unix:" + socket;
        } else {
            builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0));
            address = null;
        }
        Server server = builder.directExecutor()
                .addService(ServerInterceptors.intercept(service, capture))
                .build()
                .start();
        if (address == null) {
            address = "127.0.0.1:" + server.getPort();
        }
        return new FakeReferee(server, group, address);
    }

    @Override
    public void close() {
        try {
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (group != null) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        }
    }
}
