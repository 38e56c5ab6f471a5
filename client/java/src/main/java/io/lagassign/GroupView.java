package io.lagassign;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.PartitionInfo;

/**
 * The group as the leader sees it in one rebalance, and the {@code POST /assign} body it makes.
 *
 * <p>The leader's own metadata is authoritative: {@link #partitions()} holds the partition count
 * of every subscribed topic the leader has metadata for. A topic without metadata is left out of
 * the request and of every member's topics, as Kafka's RangeAssignor skips it.
 */
final class GroupView {

    /** One member's subscription, as the leader received it. */
    record Member(String memberId, SortedSet<String> topics, SubscriptionUserData userData,
            String groupInstanceId) {

        /** The static id Kafka reports, else the one in the user data. */
        String instanceId() {
            return groupInstanceId != null ? groupInstanceId : userData.instanceId();
        }
    }

    private final String groupId;
    private final SortedMap<String, Member> members;
    private final SortedMap<String, Integer> partitions;

    GroupView(String groupId, Map<String, Member> members, Map<String, Integer> partitions) {
        this.groupId = groupId;
        this.members = Collections.unmodifiableSortedMap(new TreeMap<>(members));
        this.partitions = Collections.unmodifiableSortedMap(new TreeMap<>(partitions));
    }

    /** How many partitions the request names: every partition of every subscribed topic with metadata. */
    int partitionCount() {
        SortedSet<String> subscribed = new TreeSet<>();
        memberTopics().values().forEach(subscribed::addAll);
        return subscribed.stream().mapToInt(partitions::get).sum();
    }

    /** The view of a rebalance from Kafka's cluster metadata and the group's subscriptions. */
    static GroupView of(String groupId, Cluster metadata, Map<String, Subscription> subscriptions)
            throws FallbackException {
        Map<String, Member> members = new TreeMap<>();
        Set<String> topics = new TreeSet<>();
        subscriptions.forEach((memberId, subscription) -> {
            members.put(memberId, new Member(
                    memberId,
                    new TreeSet<>(subscription.topics()),
                    UserDataJson.decodeSubscription(subscription.userData()),
                    subscription.groupInstanceId().orElse(null)));
            topics.addAll(subscription.topics());
        });
        return new GroupView(groupId, members, partitionCounts(metadata, topics));
    }

    /**
     * Topic to partition count from the leader's metadata, topics without metadata left out.
     *
     * @throws FallbackException (METADATA) when a topic's partitions are not exactly 0..n-1, or no
     *     subscribed topic has metadata at all
     */
    static Map<String, Integer> partitionCounts(Cluster metadata, Set<String> topics)
            throws FallbackException {
        Map<String, Integer> counts = new TreeMap<>();
        for (String topic : new TreeSet<>(topics)) {
            List<PartitionInfo> infos = metadata.partitionsForTopic(topic);
            if (infos == null || infos.isEmpty()) {
                continue;
            }
            SortedSet<Integer> ids = new TreeSet<>();
            infos.forEach(info -> ids.add(info.partition()));
            if (ids.first() != 0 || ids.last() != ids.size() - 1) {
                throw new FallbackException(FallbackReason.METADATA,
                        "metadata of topic '" + topic + "' lists partitions " + ids);
            }
            counts.put(topic, ids.size());
        }
        if (!topics.isEmpty() && counts.isEmpty()) {
            throw new FallbackException(FallbackReason.METADATA, "no subscribed topic has metadata yet");
        }
        return counts;
    }

    String groupId() {
        return groupId;
    }

    SortedMap<String, Member> members() {
        return members;
    }

    SortedMap<String, Integer> partitions() {
        return partitions;
    }

    /** Member id to the subscribed topics the leader has metadata for (possibly none). */
    Map<String, SortedSet<String>> memberTopics() {
        Map<String, SortedSet<String>> out = new TreeMap<>();
        members.forEach((memberId, member) -> {
            SortedSet<String> known = new TreeSet<>(member.topics());
            known.retainAll(partitions.keySet());
            out.put(memberId, known);
        });
        return out;
    }

    /**
     * The {@code POST /assign} request (docs/http-api.md), members with known topics only.
     *
     * @param strategy    the sidecar's strategy, or null for its default
     * @param resetPolicy the consumer's {@code auto.offset.reset} (earliest, latest, none), or null
     */
    byte[] requestBody(String strategy, String resetPolicy) {
        ObjectNode root = UserDataJson.MAPPER.createObjectNode();
        root.put("group_id", groupId);
        ArrayNode memberNodes = root.putArray("members");
        SortedSet<String> subscribed = new TreeSet<>();
        memberTopics().forEach((memberId, topics) -> {
            if (topics.isEmpty()) {
                return;
            }
            Member member = members.get(memberId);
            ObjectNode node = memberNodes.addObject();
            node.put("member_id", memberId);
            node.put("group_instance_id", member.instanceId());
            topics.forEach(node.putArray("topics")::add);
            ObjectNode owned = node.putObject("owned");
            new TreeMap<>(member.userData().owned()).forEach((topic, ps) -> {
                Integer count = partitions.get(topic);
                if (count == null) {
                    return;
                }
                List<Integer> kept = new ArrayList<>();
                for (int p : ps) {
                    if (p < count) {
                        kept.add(p);
                    }
                }
                if (!kept.isEmpty()) {
                    kept.forEach(owned.putArray(topic)::add);
                }
            });
            node.put("generation", member.userData().generation());
            node.put("rack", member.userData().rack());
            subscribed.addAll(topics);
        });
        ObjectNode counts = root.putObject("partitions");
        subscribed.forEach(topic -> counts.put(topic, partitions.get(topic)));
        root.put("protocol", "eager");
        if (strategy != null) {
            root.put("strategy", strategy);
        }
        if (resetPolicy != null) {
            root.put("reset_policy", resetPolicy);
        }
        try {
            return UserDataJson.MAPPER.writeValueAsBytes(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree failed to serialize", e);
        }
    }
}
