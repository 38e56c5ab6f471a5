package io.lagassign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The advisor against a real HTTP server on 127.0.0.1 that answers {@code GET /groups/g/advice};
 * the consumer is Kafka's {@link MockConsumer}, which records {@code enforceRebalance} and reports
 * the group metadata the test sets.
 */
class RebalanceAdvisorTest {
    static final String DIGEST = "72ad50af9b0c62e8";
    static final String ADVISED = "{\"advised\": true, \"reason\": \"worst lag 1700 -> 910\", "
            + "\"assignment_digest\": \"" + DIGEST + "\"}";
    static final String NOT_ADVISED = "{\"advised\": false, \"reason\": \"the gain has held 3 s of 300 s\"}";

    /** A consumer in group g with the member id and generation the test gives it. */
    static final class Member extends MockConsumer<byte[], byte[]> {
        final List<String> reasons = new CopyOnWriteArrayList<>();
        volatile String memberId = "m-1";
        volatile int generation = 3;

        Member() {
            super("earliest");
        }

        @Override
        @SuppressWarnings("removal") // the only way to make one outside the consumer
        public ConsumerGroupMetadata groupMetadata() {
            return new ConsumerGroupMetadata("g", generation, memberId, Optional.empty());
        }

        @Override
        public void enforceRebalance(String reason) {
            reasons.add(reason);
        }
    }

    HttpServer server;
    volatile String body = ADVISED;
    volatile long delayMs;
    final List<String> paths = new CopyOnWriteArrayList<>();
    final List<String> authorizations = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws IOException {
        server = LoopbackServer.start("/groups/", this::answer, "advice-server");
    }

    @AfterEach
    void stop() {
        server.stop(0);
        LeaderRecord.followed("m-1");
    }

    void answer(HttpExchange exchange) throws IOException {
        paths.add(exchange.getRequestURI().getRawPath());
        String auth = exchange.getRequestHeaders().getFirst("Authorization");
        authorizations.add(auth == null ? "" : auth);
        try {
            Thread.sleep(delayMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    URI base() {
        return LoopbackServer.url(server);
    }

    RebalanceAdvisor advisor(URI base) {
        return new RebalanceAdvisor(base, "g", "secret-token-0123456789", Duration.ofMillis(50));
    }

    /** Calls maybeRebalance like a poll loop until {@code done}, at most 5 s. */
    static void pollUntil(RebalanceAdvisor advisor, Member member, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!done.getAsBoolean() && System.nanoTime() < deadline) {
            advisor.maybeRebalance(member);
            Thread.sleep(5);
        }
    }

    @Test
    void adviceAboutAnotherAssignmentIsNotActedOn() throws InterruptedException {
        // The sidecar's last refresh still weighed the assignment before this generation's.
        Member member = new Member();
        LeaderRecord.led("m-1", 3, "0123456789abcdef");
        RebalanceAdvisor advisor = advisor(base());
        pollUntil(advisor, member, () -> advisor.requests() >= 3);
        assertEquals(List.of(), member.reasons);
        // Once the sidecar has weighed the assignment this member made, the advice counts.
        LeaderRecord.led("m-1", 3, DIGEST);
        pollUntil(advisor, member, () -> !member.reasons.isEmpty());
        assertEquals(1, member.reasons.size());
    }

    @Test
    void theLeaderEnforcesAnAdvisedRebalanceOncePerGeneration() throws InterruptedException {
        Member member = new Member();
        LeaderRecord.led("m-1", 3, DIGEST);
        RebalanceAdvisor advisor = advisor(base());
        pollUntil(advisor, member, () -> !member.reasons.isEmpty());
        assertEquals(List.of("lagassign advice: worst lag 1700 -> 910"), member.reasons);
        assertEquals("/groups/g/advice", paths.get(0));
        assertEquals("Bearer secret-token-0123456789", authorizations.get(0));
        long sent = advisor.requests();
        // Still generation 3: nothing more is asked or forced.
        for (int i = 0; i < 40; i++) {
            assertFalse(advisor.maybeRebalance(member));
            Thread.sleep(5);
        }
        assertEquals(1, member.reasons.size());
        assertEquals(sent, advisor.requests());
        // The rebalance gave generation 4, led by the same member: it asks again.
        member.generation = 4;
        LeaderRecord.led("m-1", 4, DIGEST);
        pollUntil(advisor, member, () -> member.reasons.size() == 2);
        assertEquals(2, member.reasons.size());
    }

    @Test
    void aMemberThatDidNotLeadNeverAsksNorForces() throws InterruptedException {
        Member member = new Member();
        LeaderRecord.led("m-1", 2, DIGEST); // led an older generation only
        RebalanceAdvisor advisor = advisor(base());
        for (int i = 0; i < 40; i++) {
            assertFalse(advisor.maybeRebalance(member));
            Thread.sleep(5);
        }
        assertTrue(member.reasons.isEmpty());
        assertEquals(0, advisor.requests());
        assertTrue(paths.isEmpty());
    }

    @Test
    void noAdviceNoRebalanceAndAtMostOneRequestPerInterval() throws InterruptedException {
        body = NOT_ADVISED;
        Member member = new Member();
        LeaderRecord.led("m-1", 3, DIGEST);
        RebalanceAdvisor advisor = new RebalanceAdvisor(base(), "g", null, Duration.ofMillis(200));
        long started = System.nanoTime();
        for (int i = 0; i < 100; i++) {
            advisor.maybeRebalance(member);
            Thread.sleep(5);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        assertTrue(member.reasons.isEmpty());
        assertTrue(advisor.requests() >= 1);
        assertTrue(advisor.requests() <= seconds / 0.2 + 1, advisor.requests() + " requests in " + seconds + " s");
        assertEquals("", authorizations.get(0));
    }

    @Test
    void aSlowSidecarNeverHoldsThePollLoop() {
        delayMs = 1_500;
        Member member = new Member();
        LeaderRecord.led("m-1", 3, DIGEST);
        RebalanceAdvisor advisor = advisor(base());
        long started = System.nanoTime();
        for (int i = 0; i < 20; i++) {
            assertFalse(advisor.maybeRebalance(member));
        }
        long elapsedMs = (System.nanoTime() - started) / 1_000_000;
        assertTrue(elapsedMs < 1_000, "20 calls took " + elapsedMs + " ms");
        assertEquals(1, advisor.requests());
    }

    @Test
    void anUnreachableSidecarDoesNothingAndWarnsOnce() throws IOException, InterruptedException {
        Member member = new Member();
        LeaderRecord.led("m-1", 3, DIGEST);
        RebalanceAdvisor advisor = advisor(FakeSidecar.stoppedUrl());
        pollUntil(advisor, member, () -> advisor.requests() >= 4);
        Thread.sleep(100);
        assertTrue(advisor.requests() >= 4);
        assertTrue(member.reasons.isEmpty());
        assertEquals(1, advisor.warnings());
    }

    @Test
    void aMalformedAnswerIsNotAdvice() throws InterruptedException {
        body = "{\"advised\": \"yes\"}";
        Member member = new Member();
        LeaderRecord.led("m-1", 3, DIGEST);
        RebalanceAdvisor advisor = advisor(base());
        pollUntil(advisor, member, () -> advisor.requests() >= 3);
        Thread.sleep(100);
        advisor.maybeRebalance(member);
        assertTrue(member.reasons.isEmpty());
        assertEquals(1, advisor.warnings());
    }

    @Test
    void groupIdsAreEscapedInThePath() {
        RebalanceAdvisor advisor = new RebalanceAdvisor(URI.create("http://127.0.0.1:1/"), "a b/c", null,
                Duration.ofSeconds(1));
        assertEquals("http://127.0.0.1:1/groups/a%20b%2Fc/advice", advisor.adviceUri().toString());
    }
}
