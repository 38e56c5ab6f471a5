package io.lagassign.broker;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;

/** Group specs as the coordinator builds them (Kafka's own GroupSpecImpl), for the tests. */
final class Groups {
    static final Uuid ORDERS = Uuid.fromString("b9qb0e5ZQXmcN3DmxEsbQA");
    static final Uuid PAYMENTS = Uuid.fromString("kVj2dFKNSTe0V8gQzz1wGA");

    private Groups() {
    }

    /** A builder of one group: members, their subscriptions and current (owned) assignment. */
    static final class Spec {
        private final Map<String, MemberSubscriptionAndAssignmentImpl> members = new HashMap<>();
        private final Map<Uuid, Integer> partitions = new HashMap<>();
        private final Map<Uuid, List<Set<String>>> racks = new HashMap<>();

        Spec topic(Uuid topicId, int count) {
            partitions.put(topicId, count);
            return this;
        }

        Spec racks(Uuid topicId, List<Set<String>> replicaRacks) {
            racks.put(topicId, replicaRacks);
            return this;
        }

        Spec member(String memberId, Set<Uuid> topics) {
            return member(memberId, null, null, topics, Map.of());
        }

        Spec member(String memberId, String instanceId, String rack, Set<Uuid> topics, Map<Uuid, Set<Integer>> owned) {
            members.put(memberId, new MemberSubscriptionAndAssignmentImpl(Optional.ofNullable(rack),
                    Optional.ofNullable(instanceId), topics, new Assignment(owned)));
            return this;
        }

        GroupSpec spec() {
            Map<Uuid, Map<Integer, String>> inverted = new HashMap<>();
            members.forEach((memberId, member) -> member.partitions().forEach((topicId, ps) ->
                    ps.forEach(p -> inverted.computeIfAbsent(topicId, t -> new HashMap<>()).put(p, memberId))));
            boolean homogeneous = members.values().stream().map(m -> m.subscribedTopicIds()).distinct().count() <= 1;
            return new GroupSpecImpl(Map.copyOf(members),
                    homogeneous ? SubscriptionType.HOMOGENEOUS : SubscriptionType.HETEROGENEOUS, inverted);
        }

        SubscribedTopicDescriber describer() {
            return Groups.describer(Map.copyOf(partitions), Map.copyOf(racks));
        }
    }

    /**
     * The coordinator's view of the topics: each one's partition count (-1 for a topic it does not
     * know) and each partition's replica racks (none for a topic without {@code racks}).
     */
    static SubscribedTopicDescriber describer(Map<Uuid, Integer> counts, Map<Uuid, List<Set<String>>> racks) {
        return new SubscribedTopicDescriber() {
            @Override
            public int numPartitions(Uuid topicId) {
                return counts.getOrDefault(topicId, -1);
            }

            @Override
            public Set<String> racksForPartition(Uuid topicId, int partition) {
                List<Set<String>> of = racks.get(topicId);
                return of == null ? Set.of() : of.get(partition);
            }
        };
    }

    static Spec group() {
        return new Spec();
    }

    /** Values as the packed answer's arrays are: little-endian 32-bit integers in standard base64. */
    static String packed(int... values) {
        ByteBuffer buffer = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        for (int value : values) {
            buffer.putInt(value);
        }
        return Base64.getEncoder().encodeToString(buffer.array());
    }

    /** Member id -> topic id -> partitions, comparable whatever MemberAssignment class holds them. */
    static Map<String, Map<Uuid, Set<Integer>>> plain(GroupAssignment assignment) {
        Map<String, Map<Uuid, Set<Integer>>> out = new HashMap<>();
        for (Map.Entry<String, MemberAssignment> member : assignment.members().entrySet()) {
            Map<Uuid, Set<Integer>> topics = new HashMap<>();
            member.getValue().partitions().forEach((topicId, ps) -> {
                if (!ps.isEmpty()) {
                    topics.put(topicId, Set.copyOf(ps));
                }
            });
            out.put(member.getKey(), topics);
        }
        return out;
    }
}
