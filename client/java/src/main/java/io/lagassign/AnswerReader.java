package io.lagassign;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads the sidecar's answer and checks it against the leader's own metadata.
 *
 * <p>An answer is used only when every member the leader asked about is present, every partition
 * of every subscribed topic is given exactly once, only to a member subscribed to its topic, and
 * nothing unknown appears. The rebalance is eager, so nothing may be withheld in {@code revoked}.
 */
final class AnswerReader {

    /**
     * A checked answer: every member of the view listed, partitions sorted by topic and id, and
     * what the sidecar says it knew of the lag.
     *
     * @param lagSource         {@code lag.source}: request, kafka, forecast or none; null when absent
     * @param lagComplete       {@code lag.complete}
     * @param unknownPartitions {@code lag.unknown_partitions}
     * @param maxLag            {@code stats.max_lag}, the worst member's lag, or null
     * @param meanLag           {@code stats.mean_lag}, or null
     */
    record Answer(Map<String, List<TopicPartition>> assignment, String strategy, String lagSource,
            boolean lagComplete, int unknownPartitions, Long maxLag, Double meanLag) {

        /** Whether the answer was blind to lag, or partly: empty when it knew every partition's lag. */
        Optional<LagBlindness> blindness() {
            if (lagSource == null || "none".equals(lagSource)) {
                return Optional.of(LagBlindness.LAG_BLIND);
            }
            if (!lagComplete || unknownPartitions > 0) {
                return Optional.of(LagBlindness.LAG_PARTIAL);
            }
            return Optional.empty();
        }

        /** Why, in words, for the log. */
        String blindnessText() {
            if (lagSource == null) {
                return "the answer does not say which lag it used";
            }
            if ("none".equals(lagSource)) {
                return "the sidecar knew no lag for this group (lag source none): count balance only";
            }
            return "the lag of " + unknownPartitions + " partition(s) was assumed, not known (lag source "
                    + lagSource + ", complete " + lagComplete + ")";
        }
    }

    private AnswerReader() {
    }

    static Answer read(byte[] body, GroupView view) throws FallbackException {
        JsonNode root;
        try {
            root = UserDataJson.MAPPER.readTree(body);
        } catch (IOException e) {
            throw malformed("the answer is not JSON: " + e.getMessage().lines().findFirst().orElse(""));
        }
        if (root == null || !root.isObject() || !root.path("assignment").isObject()) {
            throw malformed("the answer has no 'assignment' object");
        }
        Map<String, Map<String, List<Integer>>> given = new TreeMap<>();
        for (Map.Entry<String, JsonNode> member : root.get("assignment").properties()) {
            given.put(member.getKey(), partitionLists(member.getValue(), "assignment['" + member.getKey() + "']"));
        }
        if (withholds(root.path("revoked"))) {
            throw invalid("the answer withholds partitions in 'revoked' in an eager rebalance");
        }

        Map<String, SortedSet<String>> topicsOf = new TreeMap<>();
        view.memberTopics().forEach((memberId, topics) -> {
            if (!topics.isEmpty()) {
                topicsOf.put(memberId, topics);
            }
        });
        for (String memberId : topicsOf.keySet()) {
            if (!given.containsKey(memberId)) {
                throw invalid("member '" + memberId + "' is missing from the answer");
            }
        }
        Map<TopicPartition, String> owner = new HashMap<>();
        for (Map.Entry<String, Map<String, List<Integer>>> member : given.entrySet()) {
            String memberId = member.getKey();
            if (!topicsOf.containsKey(memberId)) {
                throw invalid("the answer names unknown member '" + memberId + "'");
            }
            for (Map.Entry<String, List<Integer>> topic : member.getValue().entrySet()) {
                if (topic.getValue().isEmpty()) {
                    continue;
                }
                Integer count = view.partitions().get(topic.getKey());
                if (count == null) {
                    throw invalid("the answer gives unknown topic '" + topic.getKey() + "' to '" + memberId + "'");
                }
                if (!topicsOf.get(memberId).contains(topic.getKey())) {
                    throw invalid("the answer gives '" + topic.getKey() + "' to '" + memberId + "', not subscribed");
                }
                for (int p : topic.getValue()) {
                    TopicPartition tp = new TopicPartition(topic.getKey(), p);
                    if (p < 0 || p >= count) {
                        throw invalid("the answer gives unknown partition " + tp);
                    }
                    String earlier = owner.putIfAbsent(tp, memberId);
                    if (earlier != null) {
                        throw invalid("the answer gives " + tp + " to both '" + earlier + "' and '" + memberId + "'");
                    }
                }
            }
        }
        for (Map.Entry<String, Integer> topic : view.partitions().entrySet()) {
            boolean subscribed = topicsOf.values().stream().anyMatch(ts -> ts.contains(topic.getKey()));
            for (int p = 0; subscribed && p < topic.getValue(); p++) {
                if (!owner.containsKey(new TopicPartition(topic.getKey(), p))) {
                    throw invalid("the answer leaves " + topic.getKey() + "-" + p + " unassigned");
                }
            }
        }

        Map<String, List<TopicPartition>> assignment = new TreeMap<>();
        view.members().keySet().forEach(memberId -> assignment.put(memberId, new ArrayList<>()));
        given.forEach((memberId, topics) -> topics.forEach((topic, ps) -> ps.stream().sorted()
                .forEach(p -> assignment.get(memberId).add(new TopicPartition(topic, p)))));
        JsonNode strategy = root.path("strategy");
        JsonNode lag = root.path("lag");
        JsonNode stats = root.path("stats");
        return new Answer(assignment, strategy.isTextual() ? strategy.textValue() : null,
                lag.path("source").isTextual() ? lag.path("source").textValue() : null,
                lag.path("complete").asBoolean(false),
                lag.path("unknown_partitions").isIntegralNumber() ? lag.path("unknown_partitions").intValue() : 0,
                stats.path("max_lag").isNumber() ? stats.path("max_lag").longValue() : null,
                stats.path("mean_lag").isNumber() ? stats.path("mean_lag").doubleValue() : null);
    }

    private static Map<String, List<Integer>> partitionLists(JsonNode node, String where) throws FallbackException {
        if (!node.isObject()) {
            throw malformed(where + " is not an object");
        }
        Map<String, List<Integer>> out = new TreeMap<>();
        for (Map.Entry<String, JsonNode> topic : node.properties()) {
            JsonNode partitions = topic.getValue();
            if (!partitions.isArray()) {
                throw malformed(where + "['" + topic.getKey() + "'] is not a list of partition ids");
            }
            List<Integer> ids = new ArrayList<>();
            for (JsonNode p : partitions) {
                if (!p.isIntegralNumber() || !p.canConvertToInt()) {
                    throw malformed(where + "['" + topic.getKey() + "'] is not a list of partition ids");
                }
                ids.add(p.intValue());
            }
            out.put(topic.getKey(), ids);
        }
        return out;
    }

    private static boolean withholds(JsonNode revoked) throws FallbackException {
        if (revoked.isMissingNode() || revoked.isNull()) {
            return false;
        }
        if (!revoked.isObject()) {
            throw malformed("'revoked' is not an object");
        }
        for (Map.Entry<String, JsonNode> member : revoked.properties()) {
            for (List<Integer> ids : partitionLists(member.getValue(), "revoked['" + member.getKey() + "']").values()) {
                if (!ids.isEmpty()) {
                    return true;
                }
            }
        }
        return false;
    }

    private static FallbackException malformed(String message) {
        return new FallbackException(FallbackReason.MALFORMED, message);
    }

    private static FallbackException invalid(String message) {
        return new FallbackException(FallbackReason.INVALID, message);
    }
}
