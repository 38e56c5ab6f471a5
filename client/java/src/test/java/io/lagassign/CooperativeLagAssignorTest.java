package io.lagassign;

import static io.lagassign.Groups.cluster;
import static io.lagassign.Groups.partitionsOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

@SuppressWarnings("removal") // only the consumer makes ConsumerGroupMetadata; a test must build its own
class CooperativeLagAssignorTest {
    private static final Cluster CLUSTER = cluster(Map.of("t0", 4));
    private static final TopicPartition T0_0 = new TopicPartition("t0", 0);
    private static final TopicPartition T0_1 = new TopicPartition("t0", 1);
    private static final TopicPartition T0_2 = new TopicPartition("t0", 2);
    private static final TopicPartition T0_3 = new TopicPartition("t0", 3);

    private static CooperativeLagAssignor configured(String url) {
        CooperativeLagAssignor assignor = new CooperativeLagAssignor();
        assignor.configure(Groups.consumerConfigs(url));
        return assignor;
    }

    /** A member that got {@code owned} in generation 4, as Kafka's consumer subscribes with it. */
    private static Subscription member(String url, List<TopicPartition> owned) {
        CooperativeLagAssignor mine = configured(url);
        mine.onAssignment(new Assignment(owned), new ConsumerGroupMetadata("orders", 4, "m", Optional.empty()));
        return new Subscription(List.of("t0"), mine.subscriptionUserData(Set.of("t0")), owned, 4, Optional.empty());
    }

    @Test
    void theProtocolIsNamedApartAndIsCooperativeFirst() {
        CooperativeLagAssignor assignor = new CooperativeLagAssignor();
        assertEquals("lagassign-cooperative", assignor.name());
        assertEquals(List.of(RebalanceProtocol.COOPERATIVE, RebalanceProtocol.EAGER), assignor.supportedProtocols());
    }

    @Test
    void theRequestIsCooperativeWithTheOwnedPartitionsKafkaReports() throws IOException {
        try (FakeSidecar sidecar = new FakeSidecar(FakeSidecar.Behaviour.ANSWER)) {
            String url = sidecar.url().toString();
            Map<String, Subscription> members = new TreeMap<>();
            members.put("c-1", member(url, List.of(T0_0, T0_1)));
            // Kafka reports nothing owned (an eager rebalance revoked everything) although the
            // user data still names what the member held: Kafka's report wins.
            Subscription eager = member(url, List.of(T0_2, T0_3));
            members.put("c-2", new Subscription(List.of("t0"), eager.userData(), List.of(), -1, Optional.empty()));
            configured(url).assign(CLUSTER, new GroupSubscription(members));

            JsonNode request = sidecar.requests.get(0);
            assertEquals("cooperative", request.get("protocol").textValue());
            Map<String, String> owned = new TreeMap<>();
            Map<String, String> generations = new TreeMap<>();
            request.get("members").forEach(m -> {
                owned.put(m.get("member_id").textValue(), m.get("owned").toString());
                generations.put(m.get("member_id").textValue(), m.get("generation").toString());
            });
            assertEquals(Map.of("c-1", "{\"t0\":[0,1]}", "c-2", "{}"), owned);
            assertEquals(Map.of("c-1", "4", "c-2", "4"), generations);
        }
    }

    @Test
    void anAnswerMovingAPartitionStraightFallsBackToCooperativeSticky() throws IOException {
        try (FakeSidecar sidecar = new FakeSidecar(FakeSidecar.Behaviour.ANSWER)) {
            String url = sidecar.url().toString();
            // c-1 owns everything; the fake's round robin gives t0-1 and t0-3 straight to c-2.
            Map<String, Subscription> members = new TreeMap<>();
            members.put("c-1", member(url, List.of(T0_0, T0_1, T0_2, T0_3)));
            members.put("c-2", member(url, List.of()));
            CooperativeLagAssignor leader = configured(url);
            GroupAssignment assigned = leader.assign(CLUSTER, new GroupSubscription(members));

            Decision decision = leader.lastDecision().orElseThrow();
            assertEquals("cooperative-sticky", decision.by());
            assertEquals(Optional.of(FallbackReason.INVALID), decision.reason());
            assertTrue(decision.message().orElseThrow().contains("must be revoked first"), decision.message().get());

            // Exactly Kafka's own answer, which withholds what moves: c-1 keeps two, c-2 gets none yet.
            Map<String, Subscription> plain = new TreeMap<>();
            members.forEach((id, s) -> plain.put(id, new Subscription(s.topics(),
                    CarriedUserData.carried(s.userData()), s.ownedPartitions(), 4, Optional.empty())));
            GroupAssignment kafka = new CooperativeStickyAssignor().assign(CLUSTER, new GroupSubscription(plain));
            assertEquals(partitionsOf(kafka), partitionsOf(assigned));
            assertEquals(2, assigned.groupAssignment().get("c-1").partitions().size());
            assertEquals(List.of(), assigned.groupAssignment().get("c-2").partitions());
            Set<TopicPartition> kept = new HashSet<>(assigned.groupAssignment().get("c-1").partitions());
            assertTrue(Set.of(T0_0, T0_1, T0_2, T0_3).containsAll(kept));
            assertEquals(Optional.of(new AssignmentNote("cooperative-sticky", null, "invalid")),
                    UserDataJson.decodeNote(assigned.groupAssignment().get("c-2").userData()));
        }
    }

    @Test
    void kafkasStickyUserDataTravelsInsideTheShims() {
        CooperativeLagAssignor assignor = configured("http://127.0.0.1:1");
        assignor.onAssignment(new Assignment(List.of(T0_1)), new ConsumerGroupMetadata("orders", 9, "m",
                Optional.empty()));
        ByteBuffer sent = assignor.subscriptionUserData(Set.of("t0"));

        CooperativeStickyAssignor kafka = new CooperativeStickyAssignor();
        kafka.onAssignment(new Assignment(List.of(T0_1)), new ConsumerGroupMetadata("orders", 9, "m",
                Optional.empty()));
        ByteBuffer carried = CarriedUserData.carried(sent);
        assertNotNull(carried);
        assertEquals(kafka.subscriptionUserData(Set.of("t0")), carried);
        SubscriptionUserData ours = UserDataJson.decodeSubscription(sent);
        assertEquals(Map.of("t0", List.of(1)), ours.owned());
        assertEquals(9, ours.generation());
    }
}
