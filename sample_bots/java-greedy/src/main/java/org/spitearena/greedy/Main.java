package org.spitearena.greedy;

import org.spitearena.sdk.Options;
import org.spitearena.sdk.Spite;
import org.spitearena.sdk.policies.Policies;

/**
 * The greedy sample bot on the Java SDK: stock first, then natural cards, then the discard
 * that blocks least ({@link Policies#greedy}, the same choices as the Python greedy bot).
 *
 * <p>The referee, or {@code spite play}, starts it with its address and seat token in the
 * environment; to run it by hand against a referee you started:
 *
 * <pre>
 * SPITE_ADDRESS=localhost:50051 SPITE_TOKEN=... java -jar target/java-greedy.jar
 * </pre>
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        Spite.run((observation, decision) -> Policies.greedy(observation), Options.of("java-greedy", "1.0.0"));
    }
}
