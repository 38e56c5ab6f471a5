package io.lagassign.reference;

import com.fasterxml.jackson.databind.JsonNode;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One request line, turned into what a Kafka assignor receives from the group leader:
 * cluster metadata ({@link Cluster}) and the members' subscriptions ({@link GroupSubscription}).
 *
 * <p>The fields are those of {@code POST /assign}: {@code members[]} with {@code member_id},
 * {@code group_instance_id}, {@code topics}, {@code owned} and {@code generation}, and
 * {@code partitions} (topic to partition count); plus {@code assignor} and {@code repeat}.
 * Racks are never given, so Kafka's rack-aware passes stay off.
 */
final class AssignRequest {
    private static final Node BROKER = new Node(0, "127.0.0.1", 9092);
    private static final Node[] REPLICAS = {BROKER};

    final String assignor;
    final int repeat;
    final List<String> memberIds = new ArrayList<>();
    final Map<String, Subscription> subscriptions = new LinkedHashMap<>();
    final Cluster cluster;

    AssignRequest(JsonNode request) {
        assignor = required(request, "assignor").asText();
        repeat = Math.max(1, request.path("repeat").asInt(1));

        List<PartitionInfo> partitions = new ArrayList<>();
        Iterator<Map.Entry<String, JsonNode>> topics = required(request, "partitions").fields();
        while (topics.hasNext()) {
            Map.Entry<String, JsonNode> topic = topics.next();
            int count = topic.getValue().asInt();
            for (int p = 0; p < count; p++)
                partitions.add(new PartitionInfo(topic.getKey(), p, BROKER, REPLICAS, REPLICAS));
        }
        cluster = new Cluster("lagassign-reference", List.of(BROKER), partitions,
                Collections.emptySet(), Collections.emptySet());

        for (JsonNode member : required(request, "members")) {
            String memberId = required(member, "member_id").asText();
            List<String> subscribed = new ArrayList<>();
            required(member, "topics").forEach(topic -> subscribed.add(topic.asText()));
            List<TopicPartition> owned = new ArrayList<>();
            Iterator<Map.Entry<String, JsonNode>> ownedTopics = member.path("owned").fields();
            while (ownedTopics.hasNext()) {
                Map.Entry<String, JsonNode> topic = ownedTopics.next();
                topic.getValue().forEach(p -> owned.add(new TopicPartition(topic.getKey(), p.asInt())));
            }
            JsonNode generation = member.path("generation");
            int generationId = generation.isIntegralNumber() ? generation.asInt() : -1;
            Subscription subscription = new Subscription(subscribed, null, owned, generationId, Optional.empty());
            JsonNode instanceId = member.path("group_instance_id");
            subscription.setGroupInstanceId(
                    instanceId.isTextual() ? Optional.of(instanceId.asText()) : Optional.empty());
            memberIds.add(memberId);
            subscriptions.put(memberId, subscription);
        }
    }

    /** A fresh copy of the subscriptions: assignors may keep or alter what they are given. */
    GroupSubscription groupSubscription() {
        return new GroupSubscription(new HashMap<>(subscriptions));
    }

    private static JsonNode required(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull())
            throw new IllegalArgumentException("request field '" + field + "' is missing");
        return value;
    }
}
