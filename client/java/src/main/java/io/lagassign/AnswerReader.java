package io.lagassign;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads the sidecar's answer and checks it against the leader's own metadata.
 *
 * <p>An answer is used only when every member the leader asked about is present, every partition
 * of every subscribed topic is given exactly once, only to a member subscribed to its topic, and
 * nothing unknown appears. In an eager rebalance nothing may be withheld in {@code revoked}; in a
 * cooperative one a partition listed in {@code revoked} counts as placed when the member it is
 * withheld from owns it, and no partition may go straight from one owner to another
 * ({@link CooperativeRules}).
 *
 * <p>The shim asks for the {@code packed} answer form, the only one it reads: {@code {member:
 * {"topic_indices": "<base64>", "partitions": "<base64>"}}} beside a {@code topics} list
 * ({@link PackedPairs}), {@code assignment} and {@code revoked} alike. The answer is read with
 * Jackson's streaming parser into int arrays and checked with one bit per partition of the group.
 */
final class AnswerReader {
    /** Reads the small fields as trees, mid-document (the end of the document is checked here). */
    private static final ObjectMapper TREES = new ObjectMapper();

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

    /**
     * One member's part of {@code assignment} or {@code revoked}: run i is topic {@code topic[i]}
     * (an index into the answer's topic names) with partitions {@code ids[start(i)..end[i])}.
     */
    private record Pairs(int[] topic, int[] end, int[] ids) {

        /** A packed member's arrays as runs of one topic index each, ids held as given. */
        static Pairs of(PackedPairs packed) {
            int[] topics = packed.topicIndices();
            int runs = 0;
            for (int i = 0; i < topics.length; i++) {
                if (i == 0 || topics[i] != topics[i - 1]) {
                    runs++;
                }
            }
            int[] topic = new int[runs];
            int[] end = new int[runs];
            int run = -1;
            for (int i = 0; i < topics.length; i++) {
                if (i == 0 || topics[i] != topics[i - 1]) {
                    topic[++run] = topics[i];
                }
                end[run] = i + 1;
            }
            return new Pairs(topic, end, packed.partitions());
        }

        int size() {
            return topic.length;
        }

        int start(int i) {
            return i == 0 ? 0 : end[i - 1];
        }
    }

    /** The answer as read: its topic names, per member its pairs, and the small fields as JSON. */
    private static final class Parsed {
        List<String> topics;
        Map<String, Pairs> assignment;
        Map<String, Pairs> revoked;
        JsonNode strategy = MissingNode.getInstance();
        JsonNode lag = MissingNode.getInstance();
        JsonNode stats = MissingNode.getInstance();
    }

    private AnswerReader() {
    }

    static Answer read(byte[] body, GroupView view) throws FallbackException {
        return read(body, view, false);
    }

    /** The answer to an eager ({@code cooperative} false) or cooperative request. */
    static Answer read(byte[] body, GroupView view, boolean cooperative) throws FallbackException {
        Parsed parsed;
        try (JsonParser json = TREES.createParser(body)) {
            parsed = parse(json);
        } catch (IOException e) {
            throw malformed("the answer is not JSON: " + String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
        }
        if (parsed.topics == null) {
            throw malformed("the answer has no 'topics' list");
        }
        if (!cooperative && withholds(parsed.revoked)) {
            throw invalid("the answer withholds partitions in 'revoked' in an eager rebalance");
        }
        List<String> names = parsed.topics;
        for (Map.Entry<String, Pairs> member : parsed.assignment.entrySet()) {
            checkIndices(member.getValue(), names.size(), "assignment['" + member.getKey() + "']");
        }
        Map<String, List<TopicPartition>> withheld = new TreeMap<>();
        if (cooperative && parsed.revoked != null) {
            for (Map.Entry<String, Pairs> member : parsed.revoked.entrySet()) {
                checkIndices(member.getValue(), names.size(), "revoked['" + member.getKey() + "']");
                List<TopicPartition> partitions = partitionsOf(member.getValue(), names);
                if (!partitions.isEmpty()) {
                    withheld.put(member.getKey(), partitions);
                }
            }
        }
        Map<String, List<TopicPartition>> assignment = check(view, names, parsed.assignment, withheld);
        if (cooperative) {
            CooperativeRules.check(view, assignment, withheld);
        }
        JsonNode lag = parsed.lag;
        JsonNode stats = parsed.stats;
        return new Answer(assignment, parsed.strategy.isTextual() ? parsed.strategy.textValue() : null,
                lag.path("source").isTextual() ? lag.path("source").textValue() : null,
                lag.path("complete").asBoolean(false),
                lag.path("unknown_partitions").isIntegralNumber() ? lag.path("unknown_partitions").intValue() : 0,
                stats.path("max_lag").isNumber() ? stats.path("max_lag").longValue() : null,
                stats.path("mean_lag").isNumber() ? stats.path("mean_lag").doubleValue() : null);
    }

    /** Reads the whole document with the streaming parser: no tree of a million nodes. */
    private static Parsed parse(JsonParser json) throws IOException, FallbackException {
        if (json.nextToken() != JsonToken.START_OBJECT) {
            throw malformed("the answer has no 'assignment' object");
        }
        Parsed parsed = new Parsed();
        while (json.nextToken() == JsonToken.FIELD_NAME) {
            String field = json.currentName();
            JsonToken value = json.nextToken();
            switch (field) {
                case "topics" -> parsed.topics = topicNames(json, value);
                case "assignment" -> {
                    if (value != JsonToken.START_OBJECT) {
                        throw malformed("the answer has no 'assignment' object");
                    }
                    parsed.assignment = members(json, "assignment");
                }
                case "revoked" -> {
                    if (value == JsonToken.VALUE_NULL) {
                        parsed.revoked = null;
                    } else if (value != JsonToken.START_OBJECT) {
                        throw malformed("'revoked' is not an object");
                    } else {
                        parsed.revoked = members(json, "revoked");
                    }
                }
                case "strategy" -> parsed.strategy = json.readValueAsTree();
                case "lag" -> parsed.lag = json.readValueAsTree();
                case "stats" -> parsed.stats = json.readValueAsTree();
                default -> json.skipChildren();
            }
        }
        if (json.currentToken() != JsonToken.END_OBJECT || json.nextToken() != null) {
            throw malformed("the answer is not one JSON object");
        }
        if (parsed.assignment == null) {
            throw malformed("the answer has no 'assignment' object");
        }
        return parsed;
    }

    private static List<String> topicNames(JsonParser json, JsonToken value) throws IOException, FallbackException {
        if (value != JsonToken.START_ARRAY) {
            throw malformed("'topics' is not a list of topic names");
        }
        List<String> names = new ArrayList<>();
        while (json.nextToken() == JsonToken.VALUE_STRING) {
            names.add(json.getText());
        }
        if (json.currentToken() != JsonToken.END_ARRAY) {
            throw malformed("'topics' is not a list of topic names");
        }
        if (new HashSet<>(names).size() != names.size()) {
            throw malformed("'topics' names a topic twice");
        }
        return names;
    }

    /** {@code {member_id: packed arrays}}, the parser on the object's start. */
    private static Map<String, Pairs> members(JsonParser json, String key) throws IOException, FallbackException {
        Map<String, Pairs> members = new TreeMap<>();
        while (json.nextToken() == JsonToken.FIELD_NAME) {
            String memberId = json.currentName();
            String where = key + "['" + memberId + "']";
            if (json.nextToken() != JsonToken.START_OBJECT) {
                throw malformed(where + " is not " + PackedPairs.SHAPE);
            }
            if (json.nextToken() != JsonToken.FIELD_NAME) {
                throw malformed(where + " is not " + PackedPairs.SHAPE + ": it is empty");
            }
            json.nextToken();
            members.put(memberId, Pairs.of(PackedPairs.read(json, where)));
        }
        return members;
    }

    /** Each topic index within {@code topics} (the packed pairs ascend, so none repeats). */
    private static void checkIndices(Pairs pairs, int topics, String where) throws FallbackException {
        if (pairs.size() > 0 && pairs.topic()[pairs.size() - 1] >= topics) {
            throw malformed(where + " names a topic index that is not in 'topics'");
        }
    }

    /**
     * Checks every rule of the class comment: each partition is one bit of the group's partitions
     * (topic after topic, in the view's order), so a million of them cost a few megabytes.
     */
    private static Map<String, List<TopicPartition>> check(GroupView view, List<String> names,
            Map<String, Pairs> given, Map<String, List<TopicPartition>> withheld) throws FallbackException {
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
        for (String memberId : given.keySet()) {
            if (!topicsOf.containsKey(memberId)) {
                throw invalid("the answer names unknown member '" + memberId + "'");
            }
        }
        Map<String, Integer> firstId = new HashMap<>();
        int total = 0;
        for (Map.Entry<String, Integer> topic : view.partitions().entrySet()) {
            firstId.put(topic.getKey(), total);
            total += topic.getValue();
        }
        int[] offsets = new int[names.size()];
        int[] counts = new int[names.size()];
        for (int i = 0; i < names.size(); i++) {
            Integer first = firstId.get(names.get(i));
            offsets[i] = first == null ? -1 : first;
            counts[i] = first == null ? 0 : view.partitions().get(names.get(i));
        }
        BitSet assigned = new BitSet(total);
        List<String> memberIds = new ArrayList<>(given.keySet());
        int[] rank = nameRanks(names);
        Map<Set<String>, boolean[]> allowedOf = new IdentityHashMap<>();
        Map<String, List<TopicPartition>> assignment = new TreeMap<>();
        view.members().keySet().forEach(memberId -> assignment.put(memberId, new ArrayList<>()));
        for (int ordinal = 0; ordinal < memberIds.size(); ordinal++) {
            String memberId = memberIds.get(ordinal);
            Pairs pairs = given.get(memberId);
            boolean[] allowed = allowedOf.computeIfAbsent(topicsOf.get(memberId), topics -> {
                boolean[] in = new boolean[names.size()];
                for (int i = 0; i < in.length; i++) {
                    in[i] = topics.contains(names.get(i));
                }
                return in;
            });
            List<TopicPartition> out = new ArrayList<>(pairs.ids().length);
            assignment.put(memberId, out);
            for (int i : byTopicName(pairs, rank)) {
                int from = pairs.start(i);
                int to = pairs.end()[i];
                if (from == to) {
                    continue;
                }
                int topic = pairs.topic()[i];
                String name = names.get(topic);
                if (offsets[topic] < 0) {
                    throw invalid("the answer gives unknown topic '" + name + "' to '" + memberId + "'");
                }
                if (!allowed[topic]) {
                    throw invalid("the answer gives '" + name + "' to '" + memberId + "', not subscribed");
                }
                int[] ids = pairs.ids();
                for (int k = from; k < to; k++) {
                    int p = ids[k];
                    if (p < 0 || p >= counts[topic]) {
                        throw invalid("the answer gives unknown partition " + new TopicPartition(name, p));
                    }
                    int id = offsets[topic] + p;
                    if (assigned.get(id)) {
                        TopicPartition twice = new TopicPartition(name, p);
                        throw invalid("the answer gives " + twice + " to both '"
                                + ownerOf(twice, assignment, memberId) + "' and '" + memberId + "'");
                    }
                    assigned.set(id);
                    out.add(new TopicPartition(name, p));
                }
            }
        }
        // A withheld partition (cooperative) is placed too; CooperativeRules checks who owns it.
        for (List<TopicPartition> partitions : withheld.values()) {
            for (TopicPartition tp : partitions) {
                Integer first = firstId.get(tp.topic());
                if (first != null && tp.partition() >= 0 && tp.partition() < view.partitions().get(tp.topic())) {
                    assigned.set(first + tp.partition());
                }
            }
        }
        Set<String> subscribed = view.subscribedTopics();
        for (Map.Entry<String, Integer> topic : view.partitions().entrySet()) {
            if (!subscribed.contains(topic.getKey())) {
                continue;
            }
            int first = firstId.get(topic.getKey());
            int gap = assigned.nextClearBit(first);
            if (gap < first + topic.getValue()) {
                throw invalid("the answer leaves " + topic.getKey() + "-" + (gap - first) + " unassigned");
            }
        }
        return assignment;
    }

    /** Who got {@code partition} first: the search that names a partition given twice. */
    private static String ownerOf(TopicPartition partition, Map<String, List<TopicPartition>> assignment,
            String latest) {
        for (Map.Entry<String, List<TopicPartition>> member : assignment.entrySet()) {
            if (member.getValue().contains(partition)) {
                return member.getKey();
            }
        }
        return latest;
    }

    /** The pairs' order with their topic names ascending (as they come when the topics are in name order). */
    private static int[] byTopicName(Pairs pairs, int[] rank) {
        int[] order = new int[pairs.size()];
        boolean sorted = true;
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
            if (i > 0 && rank[pairs.topic()[i - 1]] > rank[pairs.topic()[i]]) {
                sorted = false;
            }
        }
        if (sorted) {
            return order;
        }
        return java.util.stream.IntStream.range(0, order.length).boxed()
                .sorted(Comparator.comparingInt(i -> rank[pairs.topic()[i]]))
                .mapToInt(Integer::intValue).toArray();
    }

    /** Each topic index's place among the topic names in name order. */
    private static int[] nameRanks(List<String> names) {
        Integer[] byName = new Integer[names.size()];
        Arrays.setAll(byName, i -> i);
        Arrays.sort(byName, Comparator.comparing(names::get));
        int[] rank = new int[names.size()];
        for (int r = 0; r < byName.length; r++) {
            rank[byName[r]] = r;
        }
        return rank;
    }

    /** A member's pairs as topic-partitions, in the answer's order. */
    private static List<TopicPartition> partitionsOf(Pairs pairs, List<String> names) {
        List<TopicPartition> out = new ArrayList<>(pairs.ids().length);
        for (int i = 0; i < pairs.size(); i++) {
            String topic = names.get(pairs.topic()[i]);
            for (int k = pairs.start(i); k < pairs.end()[i]; k++) {
                out.add(new TopicPartition(topic, pairs.ids()[k]));
            }
        }
        return out;
    }

    private static boolean withholds(Map<String, Pairs> revoked) {
        if (revoked == null) {
            return false;
        }
        for (Pairs pairs : revoked.values()) {
            if (pairs.ids().length > 0) {
                return true;
            }
        }
        return false;
    }

    private static FallbackException malformed(String message) {
        return new FallbackException(FallbackReason.MALFORMED, message);
    }

    static FallbackException invalid(String message) {
        return new FallbackException(FallbackReason.INVALID, message);
    }
}
