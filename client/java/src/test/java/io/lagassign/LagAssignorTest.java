package io.lagassign;

import static io.lagassign.Groups.cluster;
import static io.lagassign.Groups.partitionsOf;
import static io.lagassign.Groups.subscription;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class LagAssignorTest {
    private static final Cluster CLUSTER = cluster(Map.of("t0", 4, "t1", 3));

    private static LagAssignor configured(URI url, int timeoutMs) {
        Map<String, Object> configs = Groups.consumerConfigs(url.toString());
        configs.put(LagAssignor.TIMEOUT_MS_CONFIG, timeoutMs);
        configs.put(LagAssignor.STRATEGY_CONFIG, "balanced");
        LagAssignor assignor = new LagAssignor();
        assignor.configure(configs);
        return assignor;
    }

    /** Three members, each with its own shim's user data, as the leader receives them. */
    private static GroupSubscription group(URI url) {
        Map<String, Subscription> members = new TreeMap<>();
        members.put("c-1", subscription(List.of("t0", "t1"), configured(url, 1000).subscriptionUserData(null), null));
        members.put("c-2", subscription(List.of("t0", "t1"), configured(url, 1000).subscriptionUserData(null), "web-2"));
        members.put("c-3", subscription(List.of("t0", "t1"), configured(url, 1000).subscriptionUserData(null), null));
        return new GroupSubscription(members);
    }

    @Test
    void theProtocolIsNamedLagassignAndIsEagerOnly() {
        LagAssignor assignor = new LagAssignor();
        assertEquals("lagassign", assignor.name());
        assertEquals(List.of(RebalanceProtocol.EAGER), assignor.supportedProtocols());
    }

    @Test
    void theSidecarsAnswerBecomesTheAssignment() throws IOException {
        try (FakeSidecar fake = new FakeSidecar(FakeSidecar.Behaviour.ANSWER)) {
            LagAssignor leader = configured(fake.url(), 1000);
            GroupAssignment assignment = leader.assign(CLUSTER, group(fake.url()));
            Map<String, List<String>> expected = new TreeMap<>();
            expected.put("c-1", List.of("t0-0", "t0-3", "t1-0"));
            expected.put("c-2", List.of("t0-1", "t1-1"));
            expected.put("c-3", List.of("t0-2", "t1-2"));
            assertEquals(expected, partitionsOf(assignment));
            assertEquals(1, leader.answers());
            assertEquals(Map.of(), leader.fallbackCounts());
            Decision decision = leader.lastDecision().orElseThrow();
            assertEquals("sidecar", decision.by());
            assertEquals(Optional.of("balanced"), decision.strategy());

            assertEquals(Map.of("sidecar", 1L), leader.decisionCounts());
            assertEquals(Map.of(), leader.lagBlindCounts());

            JsonNode request = fake.requests.get(0);
            assertEquals("orders", request.get("group_id").textValue());
            assertEquals("latest", request.get("reset_policy").textValue());
            assertEquals("balanced", request.get("strategy").textValue());
            assertEquals("eager", request.get("protocol").textValue());
            assertEquals("packed", request.get("answer_form").textValue());
            assertEquals("[[\"t0\",\"t1\"]]", request.get("subscriptions").toString());
            for (JsonNode member : request.get("members")) {
                assertEquals(0, member.get("subscription").intValue(), member.toString());
                assertTrue(member.path("topics").isMissingNode(), member.toString());
            }
            assertEquals("web-2", request.get("members").get(1).get("group_instance_id").textValue());
            assertEquals(4, request.get("partitions").get("t0").intValue());
            for (Assignment given : assignment.groupAssignment().values()) {
                assertEquals(Optional.of(new AssignmentNote("sidecar", "balanced", null)),
                        UserDataJson.decodeNote(given.userData()));
            }
        }
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "STATUS_500, status",
        "MALFORMED_JSON, malformed",
        "MISSING_PARTITION, invalid",
        "PARTITION_TWICE, invalid",
        "SLOW, timeout",
        "HTML_404, status",
    })
    void aFaultGivesExactlyKafkasRangeAssignor(FakeSidecar.Behaviour behaviour, String reason) throws IOException {
        try (FakeSidecar fake = new FakeSidecar(behaviour)) {
            LagAssignor leader = configured(fake.url(), 300);
            GroupSubscription members = group(fake.url());
            GroupAssignment assignment = leader.assign(CLUSTER, members);
            assertEquals(partitionsOf(new RangeAssignor().assign(CLUSTER, members)), partitionsOf(assignment));
            assertEquals(Map.of(reason, 1L), leader.fallbackCounts());
            assertEquals(0, leader.answers());
            Decision decision = leader.lastDecision().orElseThrow();
            assertEquals("range", decision.by());
            assertEquals(reason, decision.reason().orElseThrow().label());
            assertTrue(decision.elapsed().compareTo(Duration.ofSeconds(3)) < 0, "took " + decision.elapsed());
            for (Assignment given : assignment.groupAssignment().values()) {
                assertEquals(Optional.of(new AssignmentNote("range", null, reason)),
                        UserDataJson.decodeNote(given.userData()));
            }
        }
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "LAG_BLIND, lag_blind",
        "LAG_PARTIAL, lag_partial",
    })
    void anAnswerWithoutFullLagIsUsedButNotedAndCounted(FakeSidecar.Behaviour behaviour, String outcome)
            throws IOException {
        try (FakeSidecar fake = new FakeSidecar(behaviour)) {
            LagAssignor leader = configured(fake.url(), 1000);
            GroupSubscription members = group(fake.url());
            GroupAssignment assignment = leader.assign(CLUSTER, members);
            assertEquals("[t0-0, t0-3, t1-0]", partitionsOf(assignment).get("c-1").toString());
            assertEquals(1, leader.answers());
            assertEquals(Map.of(), leader.fallbackCounts());
            assertEquals(Map.of(outcome, 1L), leader.lagBlindCounts());
            assertEquals(Map.of(outcome, 1L), leader.decisionCounts());
            Decision decision = leader.lastDecision().orElseThrow();
            assertEquals("sidecar", decision.by());
            assertEquals(outcome, decision.outcome());
            for (Assignment given : assignment.groupAssignment().values()) {
                assertEquals(Optional.of(new AssignmentNote("sidecar", "balanced", outcome)),
                        UserDataJson.decodeNote(given.userData()));
            }
        }
    }

    @Test
    void anAnswerMadeWithoutAnyLagLogsItsMemberLagUnknown() throws IOException {
        java.io.ByteArrayOutputStream said = new java.io.ByteArrayOutputStream();
        java.io.PrintStream stderr = System.err;
        try (FakeSidecar fake = new FakeSidecar(FakeSidecar.Behaviour.LAG_BLIND)) {
            LagAssignor leader = configured(fake.url(), 10_000);  // a busy machine: no timeout here
            GroupSubscription members = group(fake.url());
            // slf4j-simple writes to whatever System.err is when it logs.
            System.setErr(new java.io.PrintStream(said, true, java.nio.charset.StandardCharsets.UTF_8));
            try {
                leader.assign(CLUSTER, members);
            } finally {
                System.setErr(stderr);
            }
        }
        String log = said.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(log.contains("without full lag (lag_blind)"), log);
        assertTrue(log.contains("max member lag unknown, mean member lag unknown, lag source none"), log);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "earliest, earliest",
        "LATEST, latest",
        "none, none",
        "by_duration:P1D, ",
    })
    void theConsumersResetPolicyTravelsWithTheRequest(String autoOffsetReset, String sent) throws IOException {
        try (FakeSidecar fake = new FakeSidecar(FakeSidecar.Behaviour.ANSWER)) {
            Map<String, Object> configs = Groups.consumerConfigs(fake.url().toString());
            configs.put("auto.offset.reset", autoOffsetReset);
            LagAssignor leader = new LagAssignor();
            leader.configure(configs);
            leader.assign(CLUSTER, group(fake.url()));
            JsonNode request = fake.requests.get(0);
            if (sent == null) {
                assertTrue(request.path("reset_policy").isMissingNode(), request.toString());
            } else {
                assertEquals(sent, request.get("reset_policy").textValue());
            }
        }
    }

    /** A sidecar that is stopped, and one whose host does not resolve (.invalid, RFC 2606). */
    static Stream<Arguments> unreachableSidecars() throws IOException {
        return Stream.of(Arguments.of(FakeSidecar.stoppedUrl(), "connection_refused"),
                Arguments.of(URI.create("http://lagassign.invalid:8321"), "unknown_host"));
    }

    @ParameterizedTest
    @MethodSource("unreachableSidecars")
    void anUnreachableSidecarGivesKafkasRangeAssignorCountedByItsReason(URI sidecar, String reason) {
        LagAssignor leader = configured(sidecar, 1000);
        GroupSubscription members = group(sidecar);
        assertEquals(partitionsOf(new RangeAssignor().assign(CLUSTER, members)),
                partitionsOf(leader.assign(CLUSTER, members)));
        assertEquals(Map.of(reason, 1L), leader.fallbackCounts());
    }

    @Test
    @SuppressWarnings("removal") // only the consumer makes ConsumerGroupMetadata; a test must build its own
    void ownedPartitionsAndGenerationReachTheNextRebalance() throws IOException {
        try (FakeSidecar fake = new FakeSidecar(FakeSidecar.Behaviour.ANSWER)) {
            Map<String, Object> configs = Groups.consumerConfigs(fake.url().toString());
            configs.put("group.instance.id", "web-1");
            configs.put("client.rack", "rack-a");
            LagAssignor member = new LagAssignor();
            member.configure(configs);
            member.onAssignment(
                    new Assignment(List.of(new TopicPartition("t1", 2), new TopicPartition("t1", 0)),
                            UserDataJson.encode(new AssignmentNote("sidecar", "balanced", null))),
                    new ConsumerGroupMetadata("orders", 12, "c-1", Optional.of("web-1")));
            assertEquals(Optional.of(new AssignmentNote("sidecar", "balanced", null)), member.assignedBy());
            Map<String, Subscription> members = Map.of(
                    "c-1", subscription(List.of("t1"), member.subscriptionUserData(null), null));
            member.assign(CLUSTER, new GroupSubscription(members));
            JsonNode sent = fake.requests.get(0).get("members").get(0);
            assertEquals("{\"t1\":[0,2]}", sent.get("owned").toString());
            assertEquals(12, sent.get("generation").intValue());
            assertEquals("web-1", sent.get("group_instance_id").textValue());
            assertEquals("rack-a", sent.get("rack").textValue());
        }
    }

    @Test
    @SuppressWarnings("removal") // only the consumer makes ConsumerGroupMetadata; a test must build its own
    void theMemberWhoseAssignRanIsRecordedAsTheGenerationsLeader() throws IOException {
        try (FakeSidecar fake = new FakeSidecar(FakeSidecar.Behaviour.ANSWER)) {
            LagAssignor leader = configured(fake.url(), 1000);
            Map<String, Subscription> members = Map.of(
                    "c-9", subscription(List.of("t1"), leader.subscriptionUserData(null), null));
            GroupAssignment given = leader.assign(CLUSTER, new GroupSubscription(members));
            leader.onAssignment(given.groupAssignment().get("c-9"),
                    new ConsumerGroupMetadata("orders", 5, "c-9", Optional.empty()));
            assertTrue(LeaderRecord.isLeader("c-9", 5));
            assertFalse(LeaderRecord.isLeader("c-9", 4));
            // The next generation was led by another member: this one no longer leads.
            leader.onAssignment(given.groupAssignment().get("c-9"),
                    new ConsumerGroupMetadata("orders", 6, "c-9", Optional.empty()));
            assertFalse(LeaderRecord.isLeader("c-9", 6));
            assertFalse(LeaderRecord.isLeader("c-9", 5));
        }
    }

    @Test
    void incompleteMetadataFallsBackWithoutAsking() throws IOException {
        try (FakeSidecar fake = new FakeSidecar(FakeSidecar.Behaviour.ANSWER)) {
            LagAssignor leader = configured(fake.url(), 1000);
            GroupSubscription members = new GroupSubscription(Map.of(
                    "c-1", subscription(List.of("not-yet"), null, null)));
            GroupAssignment assignment = leader.assign(CLUSTER, members);
            assertTrue(assignment.groupAssignment().get("c-1").partitions().isEmpty());
            assertEquals(Map.of("metadata", 1L), leader.fallbackCounts());
            assertTrue(fake.requests.isEmpty());
        }
    }
}
