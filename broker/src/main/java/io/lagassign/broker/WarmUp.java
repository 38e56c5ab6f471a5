package io.lagassign.broker;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;

/**
 * The plugin's own code run on a made-up group when a broker starts, on a thread of its own, so
 * that the first rebalances after a start are not the JVM's first runs of it.
 *
 * <p>A fresh broker JVM runs the plugin's code interpreted at first: measured on a real broker at
 * 50 members × 10,000 partitions, its first calls spent 20 to 38 ms reading the group's spec and
 * 3.5 to 32 ms writing the request, against well under 10 ms for both once compiled, and at the
 * 50 ms default deadline that alone makes them fall back. A broker restart is when that matters:
 * a rolling restart moves group coordinators, and the groups' next rebalances land on a cold JVM.
 *
 * <p>Each round reads the made-up group's spec ({@link GroupView}), writes its request, computes
 * the fallback's answer ({@link PreparedFallback}) and reads it back as the sidecar's packed answer
 * ({@link AssignAnswer}): every step of a call but the HTTP exchange (the start-up check opens the
 * connection). The group is the size a large group is ({@link #MEMBERS} members, {@link #TOPICS}
 * topics of {@link #PARTITIONS_PER_TOPIC} partitions, each member owning a contiguous share), and
 * the rounds stop after {@link #ROUNDS}. Nothing of it is kept.
 */
final class WarmUp {
    static final int MEMBERS = 50;
    static final int TOPICS = 10;
    static final int PARTITIONS_PER_TOPIC = 1_000;
    static final int ROUNDS = 25;

    /** The time of each round, in nanoseconds. */
    record Rounds(long[] nanos) {
        long firstNanos() {
            return nanos[0];
        }

        long lastNanos() {
            return nanos[nanos.length - 1];
        }

        long totalNanos() {
            return LongStream.of(nanos).sum();
        }
    }

    private WarmUp() {
    }

    /** Runs {@code rounds} rounds with {@code fallback} as the fallback assignor. */
    static Rounds run(ConsumerGroupPartitionAssignor fallback, int rounds) {
        MadeUpGroup group = new MadeUpGroup(MEMBERS, TOPICS, PARTITIONS_PER_TOPIC);
        long[] nanos = new long[rounds];
        for (int round = 0; round < rounds; round++) {
            long started = System.nanoTime();
            try {
                GroupView view = GroupView.of(group, group);
                AssignRequest.encode(view);
                GroupAssignment answer = new PreparedFallback(fallback, group, group).answer();
                AssignAnswer.read(packed(view, answer), view);
            } catch (FallbackException e) {
                throw new IllegalStateException("the made-up group was refused: " + e.getMessage(), e);
            }
            nanos[round] = System.nanoTime() - started;
        }
        return new Rounds(nanos);
    }

    /** {@code answer} written as the sidecar writes a packed answer. */
    static byte[] packed(GroupView view, GroupAssignment answer) {
        List<String> topics = new ArrayList<>(view.topics().keySet());
        Map<String, Integer> indexOf = new HashMap<>();
        topics.forEach(topic -> indexOf.put(topic, indexOf.size()));
        ByteArrayOutputStream out = new ByteArrayOutputStream(1024 + 8 * view.partitionCount());
        try (JsonGenerator json = AssignRequest.JSON.createGenerator(out)) {
            json.writeStartObject();
            json.writeArrayFieldStart("topics");
            for (String topic : topics) {
                json.writeString(topic);
            }
            json.writeEndArray();
            json.writeObjectFieldStart("assignment");
            for (GroupView.Member member : view.members()) {
                MemberAssignment assigned = answer.members().get(member.memberId());
                List<int[]> pairs = new ArrayList<>();
                assigned.partitions().forEach((topicId, partitions) ->
                        new TreeSet<>(partitions).forEach(p -> pairs.add(new int[] {indexOf.get(topicId.toString()), p})));
                pairs.sort((a, b) -> a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(a[1], b[1]));
                ByteBuffer topicIndices = ByteBuffer.allocate(4 * pairs.size()).order(ByteOrder.LITTLE_ENDIAN);
                ByteBuffer partitions = ByteBuffer.allocate(4 * pairs.size()).order(ByteOrder.LITTLE_ENDIAN);
                for (int[] pair : pairs) {
                    topicIndices.putInt(pair[0]);
                    partitions.putInt(pair[1]);
                }
                json.writeObjectFieldStart(member.memberId());
                json.writeStringField("topic_indices", Base64.getEncoder().encodeToString(topicIndices.array()));
                json.writeStringField("partitions", Base64.getEncoder().encodeToString(partitions.array()));
                json.writeEndObject();
            }
            json.writeEndObject();
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /**
     * A group of members all subscribed to every topic, each owning a contiguous share of each
     * topic's partitions (in an unmodifiable map, which Kafka's assignors insist on), and the
     * broker's view of its topics (no racks).
     */
    static final class MadeUpGroup implements GroupSpec, SubscribedTopicDescriber {
        private final List<String> memberIds = new ArrayList<>();
        private final Map<String, Map<Uuid, Set<Integer>>> owned = new HashMap<>();
        private final Map<Uuid, Integer> partitions = new HashMap<>();
        private final Set<Uuid> topicIds;

        MadeUpGroup(int members, int topics, int partitionsPerTopic) {
            for (int t = 0; t < topics; t++) {
                partitions.put(new Uuid(0x1a9a551911L, t + 1), partitionsPerTopic);
            }
            topicIds = Set.copyOf(partitions.keySet());
            for (int m = 0; m < members; m++) {
                String memberId = String.format("warm-up-member-%03d", m);
                memberIds.add(memberId);
                Map<Uuid, Set<Integer>> share = new HashMap<>();
                for (Uuid topicId : topicIds) {
                    Set<Integer> mine = new HashSet<>();
                    for (int p = m * partitionsPerTopic / members; p < (m + 1) * partitionsPerTopic / members; p++) {
                        mine.add(p);
                    }
                    share.put(topicId, Set.copyOf(mine));
                }
                owned.put(memberId, Collections.unmodifiableMap(share));
            }
        }

        @Override
        public Collection<String> memberIds() {
            return memberIds;
        }

        @Override
        public SubscriptionType subscriptionType() {
            return SubscriptionType.HOMOGENEOUS;
        }

        @Override
        public boolean isPartitionAssigned(Uuid topicId, int partitionId) {
            return partitions.containsKey(topicId) && partitionId >= 0 && partitionId < partitions.get(topicId);
        }

        @Override
        public boolean isPartitionAssignable(Uuid topicId, int partitionId) {
            return true;
        }

        @Override
        public MemberSubscription memberSubscription(String memberId) {
            return new MemberSubscription() {
                @Override
                public Optional<String> rackId() {
                    return Optional.empty();
                }

                @Override
                public Optional<String> instanceId() {
                    return Optional.empty();
                }

                @Override
                public Set<Uuid> subscribedTopicIds() {
                    return topicIds;
                }
            };
        }

        @Override
        public MemberAssignment memberAssignment(String memberId) {
            Map<Uuid, Set<Integer>> share = owned.get(memberId);
            return () -> share;
        }

        @Override
        public int numPartitions(Uuid topicId) {
            return partitions.getOrDefault(topicId, -1);
        }

        @Override
        public Set<String> racksForPartition(Uuid topicId, int partition) {
            return Set.of();
        }
    }
}
