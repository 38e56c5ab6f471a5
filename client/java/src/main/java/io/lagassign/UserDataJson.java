package io.lagassign;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * JSON of the {@code lagassign} protocol's user data ({@link SubscriptionUserData},
 * {@link AssignmentNote}). Decoding is lenient: absent, non-JSON or differently shaped user
 * data reads as "nothing known" rather than failing the rebalance.
 */
final class UserDataJson {
    static final int VERSION = 1;
    static final ObjectMapper MAPPER =
            new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private UserDataJson() {
    }

    static ByteBuffer encode(SubscriptionUserData data) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("v", VERSION);
        ObjectNode owned = root.putObject("owned");
        new TreeMap<>(data.owned()).forEach((topic, partitions) -> {
            if (!partitions.isEmpty()) {
                new TreeSet<>(partitions).forEach(owned.putArray(topic)::add);
            }
        });
        root.put("generation", data.generation());
        root.put("instance_id", data.instanceId());
        root.put("rack", data.rack());
        return bytes(root);
    }

    static ByteBuffer encode(AssignmentNote note) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("v", VERSION);
        root.put("by", note.by());
        if (note.strategy() != null) {
            root.put("strategy", note.strategy());
        }
        if (note.reason() != null) {
            root.put("reason", note.reason());
        }
        return bytes(root);
    }

    static SubscriptionUserData decodeSubscription(ByteBuffer raw) {
        Optional<JsonNode> parsed = object(raw);
        if (parsed.isEmpty()) {
            return SubscriptionUserData.NOTHING_KNOWN;
        }
        JsonNode root = parsed.get();
        Map<String, List<Integer>> owned = new TreeMap<>();
        JsonNode ownedNode = root.path("owned");
        if (ownedNode.isObject()) {
            for (Map.Entry<String, JsonNode> topic : ownedNode.properties()) {
                if (!topic.getValue().isArray()) {
                    continue;
                }
                TreeSet<Integer> partitions = new TreeSet<>();
                for (JsonNode p : topic.getValue()) {
                    if (p.isIntegralNumber() && p.canConvertToInt() && p.intValue() >= 0) {
                        partitions.add(p.intValue());
                    }
                }
                if (!partitions.isEmpty()) {
                    owned.put(topic.getKey(), new ArrayList<>(partitions));
                }
            }
        }
        JsonNode generation = root.path("generation");
        return new SubscriptionUserData(
                owned,
                generation.isIntegralNumber() && generation.canConvertToInt() ? generation.intValue() : null,
                text(root.path("instance_id")),
                text(root.path("rack")));
    }

    static Optional<AssignmentNote> decodeNote(ByteBuffer raw) {
        Optional<JsonNode> parsed = object(raw);
        if (parsed.isEmpty()) {
            return Optional.empty();
        }
        String by = text(parsed.get().path("by"));
        if (!Decision.BY_SIDECAR.equals(by) && !Decision.BY_RANGE.equals(by)
                && !Decision.BY_COOPERATIVE_STICKY.equals(by)) {
            return Optional.empty();
        }
        return Optional.of(new AssignmentNote(
                by, text(parsed.get().path("strategy")), text(parsed.get().path("reason"))));
    }

    private static String text(JsonNode node) {
        return node.isTextual() && !node.textValue().isEmpty() ? node.textValue() : null;
    }

    private static Optional<JsonNode> object(ByteBuffer raw) {
        if (raw == null || !raw.hasRemaining()) {
            return Optional.empty();
        }
        ByteBuffer view = raw.duplicate();
        byte[] bytes = new byte[view.remaining()];
        view.get(bytes);
        try {
            JsonNode root = MAPPER.readTree(bytes);
            return root != null && root.isObject() ? Optional.of(root) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static ByteBuffer bytes(JsonNode node) {
        try {
            return ByteBuffer.wrap(MAPPER.writeValueAsBytes(node));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree failed to serialize", e);
        }
    }
}
