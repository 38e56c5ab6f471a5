package io.lagassign.broker;

import static io.lagassign.broker.Groups.ORDERS;
import static io.lagassign.broker.Groups.PAYMENTS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LagassignAssignorTest {
    private static final String O = ORDERS.toString();
    private static final String P = PAYMENTS.toString();
    /** What the fake sidecar answers when healthy: c-1 gets orders-0 only, c-2 the rest. */
    private static final String LOPSIDED = answer(new int[] {0, 0, 0, 1, 1}, new int[] {1, 2, 3, 0, 1});
    /** The packed answer over topics orders, payments: c-1 gets orders-0, c-2 its topic indices and partitions. */
    private static String answer(int[] topicIndices, int[] partitions) {
        return ("{'group_id': 'orders', 'topics': ['" + O + "', '" + P + "'], 'assignment': {"
                + "'c-1': {'topic_indices': '" + Groups.packed(0) + "', 'partitions': '" + Groups.packed(0) + "'}, "
                + "'c-2': {'topic_indices': '" + Groups.packed(topicIndices) + "', 'partitions': '"
                + Groups.packed(partitions) + "'}}, 'revoked': {}}").replace("'", "\"");
    }

    /** Generous, so that only the slow sidecar times out even on a loaded machine. */
    private static final int TIMEOUT_MS = 1000;

    private FakeSidecar sidecar;
    private final AtomicLong clock = new AtomicLong();
    private GroupSpec spec;
    private SubscribedTopicDescriber describer;

    @BeforeEach
    void setUp() throws IOException {
        sidecar = new FakeSidecar();
        Groups.Spec group = Groups.group().topic(ORDERS, 4).topic(PAYMENTS, 2)
                .member("c-1", null, null, Set.of(ORDERS), Map.of(ORDERS, Set.of(0, 1)))
                .member("c-2", "instance-2", null, Set.of(ORDERS, PAYMENTS), Map.of(ORDERS, Set.of(2, 3)));
        spec = group.spec();
        describer = group.describer();
    }

    @AfterEach
    void tearDown() {
        sidecar.close();
    }

    private LagassignAssignor assignor(String... more) {
        Map<String, Object> props = new HashMap<>();
        props.put("lagassign.url", sidecar.url().toString());
        props.put("lagassign.timeout.ms", String.valueOf(TIMEOUT_MS));
        props.put("lagassign.breaker.failures", "1000");
        for (int i = 0; i < more.length; i += 2) {
            props.put(more[i], more[i + 1]);
        }
        LagassignAssignor assignor = new LagassignAssignor(clock::get);
        assignor.configure(props);
        assignor.awaitWarmUp();
        return assignor;
    }

    private Map<String, Map<Uuid, Set<Integer>>> uniform() {
        return Groups.plain(new UniformAssignor().assign(spec, describer));
    }

    @Test
    void theSidecarsValidAnswerIsTheAssignment() {
        sidecar.answer(body -> FakeSidecar.Reply.ok(LOPSIDED));
        LagassignAssignor assignor = assignor("lagassign.token", "s3cret");
        GroupAssignment assignment = assignor.assign(spec, describer);
        assertEquals(Map.of("c-1", Map.of(ORDERS, Set.of(0)),
                "c-2", Map.of(ORDERS, Set.of(1, 2, 3), PAYMENTS, Set.of(0, 1))), Groups.plain(assignment));
        assertEquals(1, assignor.answers());
        assertEquals("Bearer s3cret", sidecar.authorizations().get(0));
        String request = sidecar.requests().get(0);
        assertTrue(request.startsWith("{\"topic_ids\":true,"), request);
        assertFalse(request.contains("group_id"), request);
        assertTrue(request.contains("\"owned\":{\"" + O + "\":[0,1]}"), request);
    }

    private void assertUniformOn(Function<String, FakeSidecar.Reply> reply, String reason) {
        sidecar.answer(reply);
        LagassignAssignor assignor = assignor();
        long started = System.nanoTime();
        GroupAssignment assignment = assignor.assign(spec, describer);
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        assertEquals(uniform(), Groups.plain(assignment), reason);
        assertEquals(Map.of(reason, 1L), assignor.fallbackCounts());
        assertEquals(0, assignor.answers());
        // Bounded by the deadline (plus the fallback's own time and a loaded machine's slack).
        assertTrue(tookMs < TIMEOUT_MS + 2_000, reason + " took " + tookMs + " ms");
    }

    @Test
    void aSlowSidecarGetsUniformWithinTheDeadline() {
        assertUniformOn(body -> new FakeSidecar.Reply(200, LOPSIDED, 6_000), "timeout");
    }

    @Test
    void anErrorStatusGetsUniform() {
        assertUniformOn(body -> new FakeSidecar.Reply(500, "{\"error\": {}}", 0), "status");
        assertUniformOn(body -> new FakeSidecar.Reply(401, "{\"error\": {}}", 0), "status");
    }

    @Test
    void anUnknownGroupGetsUniform() {
        assertUniformOn(body -> new FakeSidecar.Reply(404, "{\"error\": {\"code\": \"unknown_group\"}}", 0),
                "unknown_group");
        assertUniformOn(body -> new FakeSidecar.Reply(409, "{\"error\": {\"code\": \"ambiguous_group\"}}", 0),
                "unknown_group");
    }

    @Test
    void malformedJsonGetsUniform() {
        assertUniformOn(body -> FakeSidecar.Reply.ok("{\"assignment\": {"), "malformed");
    }

    @Test
    void anAnswerMissingOrDoublingAPartitionGetsUniform() {
        String missing = answer(new int[] {0, 0, 1, 1}, new int[] {1, 2, 0, 1});
        assertUniformOn(body -> FakeSidecar.Reply.ok(missing), "invalid");
        String doubling = answer(new int[] {0, 0, 0, 0, 1, 1}, new int[] {0, 1, 2, 3, 0, 1});
        assertUniformOn(body -> FakeSidecar.Reply.ok(doubling), "invalid");
    }

    @Test
    void aStoppedSidecarGetsUniform() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        Map<String, Object> props = Map.of("lagassign.url", "http://127.0.0.1:" + closedPort,
                "lagassign.timeout.ms", String.valueOf(TIMEOUT_MS));
        LagassignAssignor assignor = new LagassignAssignor(clock::get);
        assignor.configure(props);
        assignor.awaitWarmUp();
        assertEquals(uniform(), Groups.plain(assignor.assign(spec, describer)));
        assertEquals(Map.of("unreachable", 1L), assignor.fallbackCounts());
    }

    @Test
    void theRangeFallbackWhenConfigured() {
        sidecar.answer(body -> new FakeSidecar.Reply(500, "{}", 0));
        LagassignAssignor assignor = assignor("lagassign.fallback", "range");
        assertEquals(Groups.plain(new RangeAssignor().assign(spec, describer)),
                Groups.plain(assignor.assign(spec, describer)));
    }

    @Test
    void theBreakerStopsAskingAfterRepeatedFailuresAndProbesAfterTheCoolOff() {
        sidecar.answer(body -> new FakeSidecar.Reply(500, "{}", 0));
        LagassignAssignor assignor = assignor("lagassign.breaker.failures", "3", "lagassign.breaker.cooloff.ms", "10000");
        for (int i = 0; i < 3; i++) {
            assignor.assign(spec, describer);
        }
        assertTrue(assignor.breakerOpen());
        assertEquals(3, sidecar.requests().size());
        for (int i = 0; i < 5; i++) {
            assertEquals(uniform(), Groups.plain(assignor.assign(spec, describer)));
        }
        assertEquals(3, sidecar.requests().size(), "asked while the breaker was open");
        assertEquals(Map.of("status", 3L, "breaker_open", 5L), assignor.fallbackCounts());

        // Cool-off over: the first call does not ask but checks /livez off the coordinator's thread;
        // the check passes, so the next call probes; the probe fails, so the breaker opens again.
        clock.addAndGet(10_000_000_000L);
        int checks = sidecar.livezChecks();
        assertEquals(uniform(), Groups.plain(assignor.assign(spec, describer)));
        assignor.awaitWarmUp();
        assertEquals(checks + 1, sidecar.livezChecks());
        assertEquals(3, sidecar.requests().size());
        assignor.assign(spec, describer);
        assertEquals(4, sidecar.requests().size());
        assignor.assign(spec, describer);
        assertEquals(4, sidecar.requests().size());
        assertTrue(assignor.breakerOpen());

        // Next cool-off: the sidecar is healthy again; check, probe, and the probe closes the breaker.
        sidecar.answer(body -> FakeSidecar.Reply.ok(LOPSIDED));
        clock.addAndGet(10_000_000_000L);
        assignor.assign(spec, describer);
        assignor.awaitWarmUp();
        assertEquals(Map.of(ORDERS, Set.of(0)), Groups.plain(assignor.assign(spec, describer)).get("c-1"));
        assertFalse(assignor.breakerOpen());
        assignor.assign(spec, describer);
        assertEquals(6, sidecar.requests().size());
        assertEquals(2, assignor.answers());
        assertEquals(Map.of("status", 4L, "breaker_open", 8L), assignor.fallbackCounts());
        assertEquals(1, assignor.plugin().getBreakerOpenedTotal());
        assertEquals(1, assignor.plugin().getBreakerClosedTotal());
        assertEquals(14, assignor.plugin().getCalls());
    }

    @Test
    void aFailedHealthCheckKeepsTheBreakerOpenWithoutAsking() {
        sidecar.answer(body -> new FakeSidecar.Reply(500, "{}", 0));
        LagassignAssignor assignor = assignor("lagassign.breaker.failures", "1", "lagassign.breaker.cooloff.ms", "10000");
        assignor.assign(spec, describer);
        assertTrue(assignor.breakerOpen());
        sidecar.livez(503);
        sidecar.answer(body -> FakeSidecar.Reply.ok(LOPSIDED));
        clock.addAndGet(10_000_000_000L);
        assignor.assign(spec, describer);
        assignor.awaitWarmUp();
        // The check failed: another cool-off, nobody asks.
        assignor.assign(spec, describer);
        assertEquals(1, sidecar.requests().size());
        assertEquals("open", assignor.plugin().getBreakerState());
    }

    @Test
    void aHungSidecarHoldsTheCallerNoLongerThanTheDeadline() {
        sidecar.answer(body -> new FakeSidecar.Reply(200, LOPSIDED, 5_000));
        LagassignAssignor assignor = assignor("lagassign.timeout.ms", "100");
        long worstMs = 0;
        for (int i = 0; i < 5; i++) {
            long started = System.nanoTime();
            assertEquals(uniform(), Groups.plain(assignor.assign(spec, describer)));
            worstMs = Math.max(worstMs, (System.nanoTime() - started) / 1_000_000);
        }
        assertEquals(Map.of("timeout", 5L), assignor.fallbackCounts());
        // The deadline, uniform's own time on six partitions, and a loaded machine's scheduling.
        assertTrue(worstMs < 100 + 150, "held " + worstMs + " ms");
    }

    @Test
    void everyInstanceSharesOneStateAndTheLastAppliedConfigurationIsInForce() {
        sidecar.answer(body -> new FakeSidecar.Reply(200, LOPSIDED, 400));
        BrokerPlugin shared = new BrokerPlugin(clock::get, false);
        LagassignAssignor inUse = new LagassignAssignor(shared);
        Map<String, Object> props = new HashMap<>(Map.of("lagassign.url", sidecar.url().toString(),
                "lagassign.timeout.ms", "100"));
        inUse.configure(props);
        assertEquals(uniform(), Groups.plain(inUse.assign(spec, describer)));
        // Kafka configures a new instance with the changed value; the one in use follows.
        props.put("lagassign.timeout.ms", "1000");
        new LagassignAssignor(shared).configure(props);
        assertEquals(1000, shared.getTimeoutMs());
        assertEquals(Map.of(ORDERS, Set.of(0)), Groups.plain(inUse.assign(spec, describer)).get("c-1"));
        assertEquals(2, shared.getConfigured());
        assertEquals(1, inUse.answers());
    }

    @Test
    void unknownGroupsNeverOpenTheBreaker() {
        sidecar.answer(body -> new FakeSidecar.Reply(404, "{}", 0));
        LagassignAssignor assignor = assignor("lagassign.breaker.failures", "2");
        for (int i = 0; i < 5; i++) {
            assignor.assign(spec, describer);
        }
        assertFalse(assignor.breakerOpen());
        assertEquals(5, sidecar.requests().size());
    }

    @Test
    void aGroupWithNothingToAssignIsNotSentToTheSidecar() {
        Groups.Spec idle = Groups.group().member("c-1", Set.of());
        LagassignAssignor assignor = assignor();
        GroupAssignment assignment = assignor.assign(idle.spec(), idle.describer());
        assertEquals(Groups.plain(new UniformAssignor().assign(idle.spec(), idle.describer())),
                Groups.plain(assignment));
        assertEquals(0, sidecar.requests().size());
    }

    @Test
    void aSubscribedTopicGoneFromTheMetadataIsLeftToKafkasOwnAssignor() {
        Groups.Spec gone = Groups.group().topic(ORDERS, 2).member("c-1", Set.of(ORDERS))
                .member("c-2", Set.of(ORDERS, PAYMENTS));
        LagassignAssignor assignor = assignor();
        org.junit.jupiter.api.Assertions.assertThrows(
                org.apache.kafka.coordinator.group.api.assignor.PartitionAssignorException.class,
                () -> new UniformAssignor().assign(gone.spec(), gone.describer()));
        // Kafka's own answer to it (here: its own PartitionAssignorException) passes through unchanged.
        org.junit.jupiter.api.Assertions.assertThrows(
                org.apache.kafka.coordinator.group.api.assignor.PartitionAssignorException.class,
                () -> assignor.assign(gone.spec(), gone.describer()));
        assertEquals(0, sidecar.requests().size());
        assertEquals(Map.of("metadata", 1L), assignor.fallbackCounts());
    }
}
