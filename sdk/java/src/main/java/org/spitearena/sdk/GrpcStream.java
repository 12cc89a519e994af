package org.spitearena.sdk;

import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.spitearena.v1.BotMessage;
import org.spitearena.v1.RefereeMessage;

/**
 * A Play stream as a {@link RefereeStream}. gRPC's callbacks only queue what arrives (with its
 * arrival time); the session's thread takes it from the queue, so every call to the bot comes
 * from that one thread.
 */
final class GrpcStream implements ClientResponseObserver<BotMessage, RefereeMessage>, RefereeStream {
    /** How long to let the referee close the stream itself after MatchOver. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

    private record End(Status status) {}

    private final BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
    private volatile ClientCallStreamObserver<BotMessage> requests;
    private boolean ended;

    @Override
    public void beforeStart(ClientCallStreamObserver<BotMessage> requests) {
        this.requests = requests;
    }

    @Override
    public void onNext(RefereeMessage message) {
        inbox.add(new Arrival(message, System.nanoTime()));
    }

    @Override
    public void onError(Throwable error) {
        inbox.add(new End(Status.fromThrowable(error)));
    }

    @Override
    public void onCompleted() {
        inbox.add(new End(Status.OK));
    }

    @Override
    public void send(BotMessage message) {
        requests.onNext(message);
    }

    @Override
    public Arrival receive() throws RefereeException, InterruptedException {
        Object item = inbox.take();
        if (item instanceof End end) {
            ended = true;
            throw RefereeException.fromStatus(end.status());
        }
        return (Arrival) item;
    }

    @Override
    public void finish() throws InterruptedException {
        requests.onCompleted();
        long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
        while (!ended) {
            Object item = inbox.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (item == null) {
                break;
            }
            ended = item instanceof End;
        }
    }

    @Override
    public void cancel() {
        if (!ended) {
            requests.cancel("the bot stopped", null);
        }
    }
}
