package io.lagassign;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.TopicPartition;

/**
 * The subscription user data of {@link CooperativeLagAssignor}: this protocol's JSON
 * ({@link SubscriptionUserData}) with Kafka's CooperativeStickyAssignor's own user data carried in
 * the field {@code cooperative_sticky} (base64), so the fallback reads exactly what it wrote.
 * Example: {@code {"v": 1, "owned": {"t0": [0]}, "generation": 7, "instance_id": null, "rack":
 * null, "cooperative_sticky": "AAAABw=="}}.
 */
final class CarriedUserData {
    static final String FIELD = "cooperative_sticky";

    private CarriedUserData() {
    }

    /** {@code ours} with {@code theirs} (possibly null or empty) carried inside. */
    static ByteBuffer carry(ByteBuffer ours, ByteBuffer theirs) {
        ObjectNode root = object(ours);
        if (theirs != null && theirs.hasRemaining()) {
            ByteBuffer view = theirs.duplicate();
            byte[] bytes = new byte[view.remaining()];
            view.get(bytes);
            root.put(FIELD, Base64.getEncoder().encodeToString(bytes));
        }
        return bytes(root);
    }

    /** The carried user data, or null when there is none or it is not readable. */
    static ByteBuffer carried(ByteBuffer ours) {
        JsonNode field = object(ours).path(FIELD);
        if (!field.isTextual()) {
            return null;
        }
        try {
            return ByteBuffer.wrap(Base64.getDecoder().decode(field.textValue()));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * The member's user data with {@code owned} and {@code generation} as Kafka's consumer reported
     * them in the subscription (nothing is owned during an eager rebalance), the rest as it sent.
     */
    static ByteBuffer withKafkaOwnership(Subscription subscription) {
        SubscriptionUserData sent = UserDataJson.decodeSubscription(subscription.userData());
        Map<String, List<Integer>> owned = new TreeMap<>();
        for (TopicPartition tp : subscription.ownedPartitions()) {
            owned.computeIfAbsent(tp.topic(), topic -> new ArrayList<>()).add(tp.partition());
        }
        owned.values().forEach(ps -> ps.sort(null));
        Integer generation = subscription.generationId().orElse(sent.generation());
        return UserDataJson.encode(new SubscriptionUserData(owned, generation, sent.instanceId(), sent.rack()));
    }

    private static ObjectNode object(ByteBuffer raw) {
        if (raw != null && raw.hasRemaining()) {
            ByteBuffer view = raw.duplicate();
            byte[] bytes = new byte[view.remaining()];
            view.get(bytes);
            try {
                JsonNode root = UserDataJson.MAPPER.readTree(bytes);
                if (root instanceof ObjectNode node) {
                    return node;
                }
            } catch (IOException e) {
                // not this protocol's JSON: nothing carried
            }
        }
        return UserDataJson.MAPPER.createObjectNode();
    }

    private static ByteBuffer bytes(JsonNode node) {
        try {
            return ByteBuffer.wrap(UserDataJson.MAPPER.writeValueAsBytes(node));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree failed to serialize", e);
        }
    }
}
