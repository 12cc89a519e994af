package org.spitearena.sdk;

import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/** A channel to the referee at {@code host:port} or {@code unix:/path}, and its event loop. */
final class Connection implements AutoCloseable {
    /** Pings notice a referee that vanished instead of hanging; the referee allows one every 5 s. */
    private static final Duration KEEPALIVE_TIME = Duration.ofSeconds(30);
    private static final Duration KEEPALIVE_TIMEOUT = Duration.ofSeconds(10);

    /**
     * grpc-java sets SO_KEEPALIVE on every channel, and Netty's bootstraps warn, once per
     * connection, that a Unix socket has no such option: noise in every bot's log. Their
     * warnings are all about channel options; errors still show. The logger is held here
     * because java.util.logging forgets the level of a logger that was garbage-collected.
     */
    static final Logger CHANNEL_OPTIONS = Logger.getLogger("io.grpc.netty.shaded.io.netty.bootstrap");

    static {
        CHANNEL_OPTIONS.setLevel(Level.SEVERE);
    }

    final ManagedChannel channel;
    private final EventLoopGroup group;

    private Connection(ManagedChannel channel, EventLoopGroup group) {
        this.channel = channel;
        this.group = group;
    }

    static Connection open(String address) throws ConfigException {
        NettyChannelBuilder builder;
        EventLoopGroup group = null;
        if (address.startsWith("unix:")) {
            String path = address.substring("unix:".length());
            if (path.startsWith("//")) { // unix:///abs/path, the URI form
                path = path.substring(2);
            }
            if (!path.startsWith("/")) {
                throw new ConfigException("bad referee address \"" + address + "\": want unix:/absolute/path");
            }
            if (!Epoll.isAvailable()) {
                throw new ConfigException("unix:" + path + " needs Netty's epoll transport (Linux on x86_64 or "
                        + "aarch64), which is unavailable here: " + Epoll.unavailabilityCause());
            }
            // One daemon thread is plenty for one stream. (Netty 4.2's form of an EpollEventLoopGroup.)
            group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("spite-referee", true),
                    EpollIoHandler.newFactory());
            builder = NettyChannelBuilder.forAddress(new DomainSocketAddress(path))
                    .eventLoopGroup(group)
                    .channelType(EpollDomainSocketChannel.class)
                    .overrideAuthority("localhost");
        } else {
            if (address.isBlank() || address.startsWith("/")) {
                throw new ConfigException("bad referee address \"" + address + "\": want host:port or unix:/path");
            }
            builder = NettyChannelBuilder.forTarget(address);
        }
        ManagedChannel channel = builder.usePlaintext()
                .directExecutor() // the SDK's callbacks only queue messages: no thread hop needed
                .maxInboundMessageSize(Spite.MAX_MESSAGE_BYTES)
                .keepAliveTime(KEEPALIVE_TIME.toSeconds(), TimeUnit.SECONDS)
                .keepAliveTimeout(KEEPALIVE_TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                .userAgent("spite-sdk-java")
                .build();
        return new Connection(channel, group);
    }

    /** Waits until the channel is connected; false when {@code timeout} passed first. */
    boolean awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        ConnectivityState state = channel.getState(true);
        while (state != ConnectivityState.READY) {
            if (state == ConnectivityState.SHUTDOWN) {
                return false;
            }
            CountDownLatch changed = new CountDownLatch(1);
            channel.notifyWhenStateChanged(state, changed::countDown);
            long left = deadline - System.nanoTime();
            if (left <= 0 || !changed.await(left, TimeUnit.NANOSECONDS)) {
                return false;
            }
            state = channel.getState(true);
        }
        return true;
    }

    /** The channel's state, in words ("transient failure"). */
    String state() {
        return channel.getState(false).name().toLowerCase().replace('_', ' ');
    }

    @Override
    public void close() {
        channel.shutdownNow();
        try {
            channel.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (group != null) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        }
    }
}
