package io.lagassign;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
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
    /** Member id to its subscribed topics with metadata; members with one subscription share the set. */
    private final SortedMap<String, SortedSet<String>> knownTopics;

    GroupView(String groupId, Map<String, Member> members, Map<String, Integer> partitions) {
        this.groupId = groupId;
        this.members = Collections.unmodifiableSortedMap(new TreeMap<>(members));
        this.partitions = Collections.unmodifiableSortedMap(new TreeMap<>(partitions));
        Map<Set<String>, SortedSet<String>> shared = new HashMap<>();
        SortedMap<String, SortedSet<String>> known = new TreeMap<>();
        this.members.forEach((memberId, member) -> known.put(memberId, shared.computeIfAbsent(member.topics(),
                topics -> {
                    SortedSet<String> kept = new TreeSet<>(topics);
                    kept.retainAll(this.partitions.keySet());
                    return Collections.unmodifiableSortedSet(kept);
                })));
        this.knownTopics = Collections.unmodifiableSortedMap(known);
    }

    /** How many partitions the request names: every partition of every subscribed topic with metadata. */
    int partitionCount() {
        return subscribedTopics().stream().mapToInt(partitions::get).sum();
    }

    /** The topics with metadata some member subscribes to. */
    SortedSet<String> subscribedTopics() {
        SortedSet<String> subscribed = new TreeSet<>();
        new HashSet<>(knownTopics.values()).forEach(subscribed::addAll);
        return subscribed;
    }

    /** The view of a rebalance from Kafka's cluster metadata and the group's subscriptions. */
    static GroupView of(String groupId, Cluster metadata, Map<String, Subscription> subscriptions)
            throws FallbackException {
        Map<String, Member> members = new TreeMap<>();
        // Members of one group mostly share a subscription: one sorted set per distinct topic list.
        Map<List<String>, SortedSet<String>> shared = new HashMap<>();
        subscriptions.forEach((memberId, subscription) -> members.put(memberId, new Member(
                memberId,
                shared.computeIfAbsent(subscription.topics(), topics -> new TreeSet<>(topics)),
                UserDataJson.decodeSubscription(subscription.userData()),
                subscription.groupInstanceId().orElse(null))));
        Set<String> topics = new TreeSet<>();
        new HashSet<>(shared.values()).forEach(topics::addAll);
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
            BitSet ids = new BitSet(infos.size());
            boolean negative = false;
            for (PartitionInfo info : infos) {
                if (info.partition() < 0) {
                    negative = true;
                } else {
                    ids.set(info.partition());
                }
            }
            int count = ids.cardinality();
            if (negative || ids.nextClearBit(0) != count) {
                SortedSet<Integer> listed = new TreeSet<>();
                infos.forEach(info -> listed.add(info.partition()));
                throw new FallbackException(FallbackReason.METADATA,
                        "metadata of topic '" + topic + "' lists partitions " + listed);
            }
            counts.put(topic, count);
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
    SortedMap<String, SortedSet<String>> memberTopics() {
        return knownTopics;
    }

    /**
     * The {@code POST /assign} request (docs/http-api.md), members with known topics only, in the
     * compact form: each distinct subscription once in {@code subscriptions}, each member naming
     * its own by index, and the answer asked for in the {@code packed} form (each member's
     * partitions as two base64 arrays of topic indices and partition ids, {@link PackedPairs}),
     * the one a large group's answer is smallest and quickest to read in.
     *
     * @param strategy    the sidecar's strategy, or null for its default
     * @param resetPolicy the consumer's {@code auto.offset.reset} (earliest, latest, none), or null
     */
    byte[] requestBody(String strategy, String resetPolicy) {
        return requestBody(strategy, resetPolicy, "eager");
    }

    /**
     * The {@code POST /assign} request for the rebalance protocol {@code protocol}: {@code eager}
     * or {@code cooperative} (the sidecar then withholds partitions that change owner).
     */
    byte[] requestBody(String strategy, String resetPolicy, String protocol) {
        Map<SortedSet<String>, Integer> subscriptionIndex = new LinkedHashMap<>();
        knownTopics.values().forEach(topics -> {
            if (!topics.isEmpty()) {
                subscriptionIndex.putIfAbsent(topics, subscriptionIndex.size());
            }
        });
        SortedSet<String> subscribed = subscribedTopics();
        ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
        try (JsonGenerator json = UserDataJson.MAPPER.getFactory().createGenerator(out)) {
            json.writeStartObject();
            json.writeStringField("group_id", groupId);
            json.writeArrayFieldStart("subscriptions");
            for (SortedSet<String> topics : subscriptionIndex.keySet()) {
                json.writeStartArray();
                for (String topic : topics) {
                    json.writeString(topic);
                }
                json.writeEndArray();
            }
            json.writeEndArray();
            json.writeArrayFieldStart("members");
            for (Map.Entry<String, SortedSet<String>> known : knownTopics.entrySet()) {
                if (known.getValue().isEmpty()) {
                    continue;
                }
                Member member = members.get(known.getKey());
                json.writeStartObject();
                json.writeStringField("member_id", known.getKey());
                json.writeStringField("group_instance_id", member.instanceId());
                json.writeNumberField("subscription", subscriptionIndex.get(known.getValue()));
                writeOwned(json, member.userData().owned());
                json.writeFieldName("generation");
                if (member.userData().generation() == null) {
                    json.writeNull();
                } else {
                    json.writeNumber(member.userData().generation());
                }
                json.writeStringField("rack", member.userData().rack());
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeObjectFieldStart("partitions");
            for (String topic : subscribed) {
                json.writeNumberField(topic, partitions.get(topic));
            }
            json.writeEndObject();
            json.writeStringField("protocol", protocol);
            json.writeStringField("answer_form", "packed");
            if (strategy != null) {
                json.writeStringField("strategy", strategy);
            }
            if (resetPolicy != null) {
                json.writeStringField("reset_policy", resetPolicy);
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("writing the request to memory failed", e);
        }
        return out.toByteArray();
    }

    /** {@code "owned"}: the owned partitions the leader's metadata knows, topics sorted. */
    private void writeOwned(JsonGenerator json, Map<String, List<Integer>> owned) throws IOException {
        json.writeObjectFieldStart("owned");
        for (Map.Entry<String, List<Integer>> topic : new TreeMap<>(owned).entrySet()) {
            Integer count = partitions.get(topic.getKey());
            if (count == null) {
                continue;
            }
            boolean started = false;
            for (int p : topic.getValue()) {
                if (p < count) {
                    if (!started) {
                        json.writeArrayFieldStart(topic.getKey());
                        started = true;
                    }
                    json.writeNumber(p);
                }
            }
            if (started) {
                json.writeEndArray();
            }
        }
        json.writeEndObject();
    }
}
