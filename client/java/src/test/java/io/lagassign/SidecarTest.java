package io.lagassign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SidecarTest {
    private static final byte[] REQUEST = ("{\"group_id\":\"g\",\"members\":[{\"member_id\":\"c-1\",\"topics\":[\"t0\"]}],"
            + "\"partitions\":{\"t0\":2}}").getBytes(StandardCharsets.UTF_8);

    private static long soon(Duration timeout) {
        return System.nanoTime() + timeout.toNanos();
    }

    /** The failure of one request, without a token, to the sidecar at {@code base}. */
    private static FallbackException failureAt(URI base) {
        Duration timeout = Duration.ofSeconds(5);
        return assertThrows(FallbackException.class,
                () -> new Sidecar(base, timeout, null).postAssign(REQUEST, soon(timeout)));
    }

    /** The failure of one request to a sidecar that answers in the given wrong way. */
    private static FallbackException failureOf(FakeSidecar.Behaviour behaviour) throws IOException {
        try (FakeSidecar fake = new FakeSidecar(behaviour)) {
            return failureAt(fake.url());
        }
    }

    @Test
    void theAssignPathIsAddedToTheBaseUrl() {
        Duration timeout = Duration.ofSeconds(1);
        assertEquals(URI.create("http://127.0.0.1:8321/assign"),
                new Sidecar(URI.create("http://127.0.0.1:8321"), timeout, null).assignUri());
        assertEquals(URI.create("https://lagassign.internal/api/assign"),
                new Sidecar(URI.create("https://lagassign.internal/api/"), timeout, null).assignUri());
    }

    @Test
    void aHealthySidecarsAnswerIsReturnedWithTheTokenSent() throws Exception {
        try (FakeSidecar fake = new FakeSidecar(FakeSidecar.Behaviour.ANSWER)) {
            Duration timeout = Duration.ofSeconds(5);
            byte[] body = new Sidecar(fake.url(), timeout, "s3cret").postAssign(REQUEST, soon(timeout));
            // c-1 gets t0-0 and t0-1: topic index 0 twice, partitions 0 and 1, in the packed form.
            assertTrue(new String(body, StandardCharsets.UTF_8).contains(
                    "\"c-1\":{\"topic_indices\":\"AAAAAAAAAAA=\",\"partitions\":\"AAAAAAEAAAA=\"}"));
            assertEquals("Bearer s3cret", fake.authorizations.get(0));
            assertEquals("g", fake.requests.get(0).get("group_id").textValue());
        }
    }

    @Test
    void aStatusOtherThan200IsAStatusFailure() throws IOException {
        FallbackException e = failureOf(FakeSidecar.Behaviour.STATUS_500);
        assertEquals(FallbackReason.STATUS, e.reason());
        assertTrue(e.getMessage().contains("HTTP 500"), e.getMessage());
    }

    @Test
    void aStoppedSidecarIsARefusedConnection() throws IOException {
        FallbackException e = failureAt(FakeSidecar.stoppedUrl());
        assertEquals(FallbackReason.CONNECTION_REFUSED, e.reason());
        assertTrue(e.getMessage().contains("connection refused"), e.getMessage());
    }

    @Test
    void aHostThatDoesNotResolveIsAnUnknownHost() {
        // .invalid never resolves (RFC 2606).
        FallbackException e = failureAt(URI.create("http://lagassign.invalid:8321"));
        assertEquals(FallbackReason.UNKNOWN_HOST, e.reason());
        assertTrue(e.getMessage().contains("lagassign.invalid"), e.getMessage());
    }

    @Test
    void anotherServersHtmlErrorPageIsOneShortLine() throws IOException {
        FallbackException e = failureOf(FakeSidecar.Behaviour.HTML_404);
        assertEquals(FallbackReason.STATUS, e.reason());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        assertFalse(e.getMessage().contains("<"), e.getMessage());
        assertTrue(e.getMessage().contains("HTTP 404"), e.getMessage());
        assertTrue(e.getMessage().contains("\"404 Not Found\""), e.getMessage());
        assertTrue(e.getMessage().length() < 200, e.getMessage());
    }

    @Test
    void theDeadlineIsHard() throws Exception {
        try (FakeSidecar fake = new FakeSidecar(FakeSidecar.Behaviour.SLOW)) {
            Duration timeout = Duration.ofMillis(200);
            long started = System.nanoTime();
            FallbackException e = assertThrows(FallbackException.class,
                    () -> new Sidecar(fake.url(), timeout, null).postAssign(REQUEST, started + timeout.toNanos()));
            Duration waited = Duration.ofNanos(System.nanoTime() - started);
            assertEquals(FallbackReason.TIMEOUT, e.reason());
            // Bounded by the deadline, not by the sidecar's 10 s; the margin is for a busy machine.
            assertTrue(waited.compareTo(Duration.ofMillis(200)) >= 0 && waited.compareTo(Duration.ofSeconds(2)) < 0,
                    "waited " + waited);
        }
    }

    @Test
    void aDeadlineAlreadyPastSendsNothing() throws Exception {
        try (FakeSidecar fake = new FakeSidecar(FakeSidecar.Behaviour.ANSWER)) {
            Sidecar sidecar = new Sidecar(fake.url(), Duration.ofSeconds(1), null);
            FallbackException e = assertThrows(FallbackException.class,
                    () -> sidecar.postAssign(REQUEST, System.nanoTime() - 1));
            assertEquals(FallbackReason.TIMEOUT, e.reason());
            assertTrue(fake.requests.isEmpty());
        }
    }
}
