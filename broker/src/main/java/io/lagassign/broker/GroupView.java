package io.lagassign.broker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;

/**
 * What the sidecar is told about one assignment, read once from the coordinator's
 * {@link GroupSpec} and {@link SubscribedTopicDescriber}: the members that subscribe to at least
 * one existing topic (sorted by member id), the other members (they get nothing), and per
 * subscribed topic id its partition count and, when a member has a rack, its replicas' racks.
 *
 * <p>Topic ids are written as Kafka writes them ({@link Uuid#toString()}: URL-safe base64, 22
 * characters), the form {@code kafka-topics --describe} shows.
 */
final class GroupView {

    /** A member that subscribes to at least one topic of {@link #topics()}. */
    record Member(String memberId, String instanceId, String rack, List<String> topics, Set<String> topicSet,
            Map<String, int[]> owned) {
    }

    /** A subscribed topic: its id, its id as text, its partition count, its replicas' racks or null. */
    record Topic(Uuid id, String text, int partitions, List<Set<String>> racks) {
    }

    private final List<Member> members;
    private final List<String> idleMembers;
    private final Map<String, Topic> topics;

    private GroupView(List<Member> members, List<String> idleMembers, Map<String, Topic> topics) {
        this.members = members;
        this.idleMembers = idleMembers;
        this.topics = topics;
    }

    /**
     * Reads the spec.
     *
     * @throws FallbackException METADATA when a subscribed topic id has no partitions in the
     *     broker's metadata or a partition is not assignable: Kafka's own assignor decides then.
     */
    static GroupView of(GroupSpec spec, SubscribedTopicDescriber describer) throws FallbackException {
        List<String> memberIds = new ArrayList<>(spec.memberIds());
        memberIds.sort(Comparator.naturalOrder());
        boolean anyRack = false;
        for (String memberId : memberIds) {
            if (spec.memberSubscription(memberId).rackId().isPresent()) {
                anyRack = true;
                break;
            }
        }
        Map<Uuid, Topic> byId = new HashMap<>();
        // Members of a homogeneous group share one subscription set: read each set once.
        Map<Set<Uuid>, List<String>> sortedTopicsOf = new IdentityHashMap<>();
        Map<Set<Uuid>, Set<String>> topicSetOf = new IdentityHashMap<>();
        List<Member> members = new ArrayList<>();
        List<String> idle = new ArrayList<>();
        for (String memberId : memberIds) {
            MemberSubscription subscription = spec.memberSubscription(memberId);
            Set<Uuid> topicIds = subscription.subscribedTopicIds();
            List<String> subscribed = sortedTopicsOf.get(topicIds);
            if (subscribed == null) {
                List<String> texts = new ArrayList<>(topicIds.size());
                for (Uuid topicId : topicIds) {
                    Topic topic = byId.get(topicId);
                    if (topic == null) {
                        topic = describe(spec, describer, topicId, anyRack);
                        byId.put(topicId, topic);
                    }
                    texts.add(topic.text());
                }
                texts.sort(Comparator.naturalOrder());
                subscribed = List.copyOf(texts);
                sortedTopicsOf.put(topicIds, subscribed);
                topicSetOf.put(topicIds, Set.copyOf(texts));
            }
            if (subscribed.isEmpty()) {
                idle.add(memberId);
                continue;
            }
            Map<String, int[]> owned = new HashMap<>();
            for (Map.Entry<Uuid, Set<Integer>> entry : spec.memberAssignment(memberId).partitions().entrySet()) {
                Topic topic = byId.get(entry.getKey());
                if (topic == null || !topicIds.contains(entry.getKey()) || entry.getValue().isEmpty()) {
                    continue;
                }
                int[] ids = new int[entry.getValue().size()];
                int n = 0;
                for (int p : entry.getValue()) {
                    if (p >= 0 && p < topic.partitions()) {
                        ids[n++] = p;
                    }
                }
                if (n > 0) {
                    int[] kept = n == ids.length ? ids : Arrays.copyOf(ids, n);
                    Arrays.sort(kept);
                    owned.put(topic.text(), kept);
                }
            }
            members.add(new Member(memberId, subscription.instanceId().orElse(null),
                    subscription.rackId().orElse(null), subscribed, topicSetOf.get(topicIds), owned));
        }
        Map<String, Topic> topics = new TreeMap<>();
        byId.values().forEach(topic -> topics.put(topic.text(), topic));
        return new GroupView(List.copyOf(members), List.copyOf(idle), topics);
    }

    private static Topic describe(GroupSpec spec, SubscribedTopicDescriber describer, Uuid topicId, boolean racks)
            throws FallbackException {
        int count = describer.numPartitions(topicId);
        if (count <= 0) {
            throw new FallbackException(Fault.METADATA, "subscribed topic " + topicId + " has no partitions "
                    + "in the broker's metadata");
        }
        List<Set<String>> replicaRacks = racks ? new ArrayList<>(count) : null;
        boolean anyKnown = false;
        for (int p = 0; p < count; p++) {
            if (!spec.isPartitionAssignable(topicId, p)) {
                throw new FallbackException(Fault.METADATA, "partition " + topicId + "-" + p + " is not assignable");
            }
            if (replicaRacks != null) {
                Set<String> inRacks = new TreeSet<>(describer.racksForPartition(topicId, p));
                anyKnown |= !inRacks.isEmpty();
                replicaRacks.add(inRacks);
            }
        }
        return new Topic(topicId, topicId.toString(), count, anyKnown ? replicaRacks : null);
    }

    /** The members the sidecar is asked about, sorted by member id. */
    List<Member> members() {
        return members;
    }

    /** Members with no existing subscribed topic: they get an empty assignment. */
    List<String> idleMembers() {
        return idleMembers;
    }

    /** The subscribed topics by topic id text, sorted. */
    Map<String, Topic> topics() {
        return topics;
    }

    Optional<Topic> topic(String text) {
        return Optional.ofNullable(topics.get(text));
    }

    /** True when there is nothing to place: no member subscribes to an existing topic. */
    boolean isEmpty() {
        return members.isEmpty();
    }

    int partitionCount() {
        return topics.values().stream().mapToInt(Topic::partitions).sum();
    }
}
