package io.lagassign.broker;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;

/**
 * Reads the sidecar's answer and checks it against the group's spec before the coordinator sees it.
 *
 * <p>Used only when it is the answer's shape, the packed form the plugin asks for ({@code {"topics":
 * [topic id, …], "assignment": {member id: {"topic_indices": "<base64>", "partitions": "<base64>"}},
 * …}}, two arrays of little-endian unsigned 32-bit integers per member, docs/http-api.md), and every
 * member asked about is present, every partition of every subscribed topic is given exactly once,
 * only to a member subscribed to its topic, nothing unknown appears, and nothing is withheld in
 * {@code revoked} (the coordinator revokes and hands over partitions itself, so the answer is always
 * the full target assignment). Other fields are ignored.
 */
final class AssignAnswer {

    /** A checked answer, and the group id the sidecar resolved (for the log), or null. */
    record Checked(GroupAssignment assignment, String groupId) {
    }

    /** One member's partitions by topic id, as the coordinator reads them. */
    record Assigned(Map<Uuid, Set<Integer>> partitions) implements MemberAssignment {
    }

    private AssignAnswer() {
    }

    static Checked read(byte[] body, GroupView view) throws FallbackException {
        return read(body, view, Long.MAX_VALUE);
    }

    /**
     * The checked answer, or TIMEOUT as soon as the deadline (a {@link System#nanoTime()} instant)
     * has passed or the caller abandoned the call (this thread interrupted), looked at every few
     * members.
     */
    static Checked read(byte[] body, GroupView view, long deadlineNanos) throws FallbackException {
        try (JsonParser json = AssignRequest.JSON.createParser(body)) {
            return read(json, view, deadlineNanos);
        } catch (IOException e) {
            throw malformed("the answer is not JSON: " + e.getMessage().lines().findFirst().orElse(""));
        }
    }

    private static Checked read(JsonParser json, GroupView view, long deadlineNanos)
            throws IOException, FallbackException {
        if (json.nextToken() != JsonToken.START_OBJECT) {
            throw malformed("the answer is not a JSON object");
        }
        Map<String, GroupView.Member> asked = new HashMap<>();
        view.members().forEach(member -> asked.put(member.memberId(), member));
        Map<String, BitSet> given = new HashMap<>();
        view.topics().keySet().forEach(topic -> given.put(topic, new BitSet()));
        List<Packed> packed = null;
        List<String> topics = null;
        String groupId = null;
        while (json.nextToken() == JsonToken.FIELD_NAME) {
            String field = json.currentName();
            JsonToken value = json.nextToken();
            switch (field) {
                case "assignment" -> packed = readAssignment(json, value, asked, deadlineNanos);
                case "revoked" -> checkNothingRevoked(json, value);
                case "topics" -> topics = readTopics(json, value);
                case "group_id" -> groupId = value == JsonToken.VALUE_STRING ? json.getText() : null;
                default -> json.skipChildren();
            }
        }
        if (json.currentToken() != JsonToken.END_OBJECT || json.nextToken() != null) {
            throw malformed("the answer has content after its JSON object");
        }
        if (packed == null) {
            throw malformed("the answer has no 'assignment' object");
        }
        if (topics == null) {
            throw malformed("the answer has no 'topics' list");
        }
        Map<String, Map<Uuid, Set<Integer>>> assignment = new HashMap<>();
        int done = 0;
        for (Packed member : packed) {
            if (++done % AssignRequest.MEMBERS_PER_DEADLINE_CHECK == 0) {
                AssignRequest.checkDeadline(deadlineNanos, "unpacking the answer (" + done + " of "
                        + packed.size() + " members)");
            }
            assignment.put(member.memberId(), unpack(member, topics, view, given));
        }
        for (String memberId : asked.keySet()) {
            if (!assignment.containsKey(memberId)) {
                throw invalid("member '" + memberId + "' is missing from the answer");
            }
        }
        for (Map.Entry<String, GroupView.Topic> topic : view.topics().entrySet()) {
            BitSet partitions = given.get(topic.getKey());
            int count = topic.getValue().partitions();
            if (partitions.cardinality() != count) {
                throw invalid("the answer leaves " + topic.getKey() + "-" + partitions.nextClearBit(0) + " unassigned");
            }
        }
        Map<String, MemberAssignment> members = new HashMap<>();
        view.idleMembers().forEach(memberId -> members.put(memberId, new Assigned(Map.of())));
        assignment.forEach((memberId, partitions) ->
                members.put(memberId, new Assigned(Collections.unmodifiableMap(partitions))));
        return new Checked(new GroupAssignment(members), groupId);
    }

    /** A member of a packed answer, read once {@code topics} is known. */
    private record Packed(String memberId, GroupView.Member member, String topicIndices, String partitions) {
    }

    private static List<String> readTopics(JsonParser json, JsonToken value) throws IOException, FallbackException {
        if (value != JsonToken.START_ARRAY) {
            throw malformed("'topics' is not a list");
        }
        List<String> out = new ArrayList<>();
        JsonToken item;
        while ((item = json.nextToken()) != JsonToken.END_ARRAY) {
            if (item != JsonToken.VALUE_STRING) {
                throw malformed("'topics' is not a list of topic ids");
            }
            out.add(json.getText());
        }
        if (new HashSet<>(out).size() != out.size()) {
            throw malformed("'topics' names a topic id twice");
        }
        return out;
    }

    /** Each member's two base64 arrays, unpacked once {@code topics} is known. */
    private static List<Packed> readAssignment(JsonParser json, JsonToken value, Map<String, GroupView.Member> asked,
            long deadlineNanos) throws IOException, FallbackException {
        if (value != JsonToken.START_OBJECT) {
            throw malformed("'assignment' is not an object");
        }
        List<Packed> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        while (json.nextToken() == JsonToken.FIELD_NAME) {
            if (seen.size() % AssignRequest.MEMBERS_PER_DEADLINE_CHECK == 0 && !seen.isEmpty()) {
                AssignRequest.checkDeadline(deadlineNanos, "reading the answer (" + seen.size() + " of "
                        + asked.size() + " members)");
            }
            String memberId = json.currentName();
            GroupView.Member member = asked.get(memberId);
            if (member == null) {
                throw invalid("the answer names member '" + memberId + "', not asked about");
            }
            if (!seen.add(memberId)) {
                throw malformed("the answer lists member '" + memberId + "' twice");
            }
            String where = "assignment['" + memberId + "']";
            if (json.nextToken() != JsonToken.START_OBJECT) {
                throw malformed(where + " is not an object");
            }
            String topicIndices = null;
            String partitions = null;
            while (json.nextToken() == JsonToken.FIELD_NAME) {
                String field = json.currentName();
                if (json.nextToken() != JsonToken.VALUE_STRING) {
                    throw malformed(where + "['" + field + "'] is not a base64 string");
                }
                switch (field) {
                    case "topic_indices" -> topicIndices = json.getText();
                    case "partitions" -> partitions = json.getText();
                    default -> throw malformed(where + " has an unknown field '" + field + "'");
                }
            }
            if (topicIndices == null || partitions == null) {
                throw malformed(where + " must be {\"topic_indices\": …, \"partitions\": …}");
            }
            out.add(new Packed(memberId, member, topicIndices, partitions));
        }
        return out;
    }

    private static Map<Uuid, Set<Integer>> unpack(Packed packed, List<String> topics, GroupView view,
            Map<String, BitSet> given) throws FallbackException {
        int[] topicIndices = littleEndian(packed, "topic_indices", packed.topicIndices());
        int[] partitions = littleEndian(packed, "partitions", packed.partitions());
        if (topicIndices.length != partitions.length) {
            throw malformed("assignment['" + packed.memberId() + "'] has " + topicIndices.length + " topic indices and "
                    + partitions.length + " partitions");
        }
        Map<Uuid, Set<Integer>> partitionsOf = new HashMap<>();
        Taker taker = null;
        for (int i = 0; i < partitions.length; i++) {
            int index = topicIndices[i];
            if (index < 0 || index >= topics.size()) {
                throw malformed("assignment['" + packed.memberId() + "'] names topic index " + index + " of "
                        + topics.size());
            }
            boolean sameTopic = i > 0 && index == topicIndices[i - 1];
            if (i > 0 && (index < topicIndices[i - 1]
                    || sameTopic && Integer.compareUnsigned(partitions[i], partitions[i - 1]) <= 0)) {
                throw malformed("assignment['" + packed.memberId() + "'] is not in strictly ascending (topic index, "
                        + "partition) order at element " + i);
            }
            if (!sameTopic) {
                if (taker != null) {
                    taker.into(partitionsOf);
                }
                taker = new Taker(packed.memberId(), packed.member(), topics.get(index), view, given);
            }
            taker.take(partitions[i]);
        }
        if (taker != null) {
            taker.into(partitionsOf);
        }
        return partitionsOf;
    }

    private static int[] littleEndian(Packed packed, String field, String base64) throws FallbackException {
        byte[] bytes;
        try {
            if (base64.length() % 4 != 0) {
                throw new IllegalArgumentException("not padded");
            }
            bytes = Base64.getDecoder().decode(base64);
        } catch (IllegalArgumentException e) {
            throw malformed("assignment['" + packed.memberId() + "']['" + field + "'] is not base64");
        }
        if (bytes.length % 4 != 0) {
            throw malformed("assignment['" + packed.memberId() + "']['" + field + "'] is not 4-byte integers");
        }
        int[] out = new int[bytes.length / 4];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(out);
        return out;
    }

    /** One member's partitions of one topic, each checked against the spec as it is taken. */
    private static final class Taker {
        private final String memberId;
        private final String topicText;
        private final GroupView.Topic topic;
        private final boolean subscribed;
        private final BitSet taken;
        private int[] mine = new int[16];
        private int count;

        Taker(String memberId, GroupView.Member member, String topicText, GroupView view, Map<String, BitSet> given) {
            this.memberId = memberId;
            this.topicText = topicText;
            this.topic = view.topic(topicText).orElse(null);
            this.subscribed = member.topicSet().contains(topicText);
            this.taken = topic == null ? null : given.get(topicText);
        }

        void take(int partition) throws FallbackException {
            if (topic == null) {
                throw invalid("the answer gives unknown topic id '" + topicText + "' to '" + memberId + "'");
            }
            if (!subscribed) {
                throw invalid("the answer gives topic " + topicText + " to '" + memberId + "', not subscribed to it");
            }
            if (partition < 0 || partition >= topic.partitions()) {
                throw invalid("the answer gives unknown partition " + topicText + "-" + partition);
            }
            if (taken.get(partition)) {
                throw invalid("the answer gives " + topicText + "-" + partition + " twice");
            }
            taken.set(partition);
            if (count == mine.length) {
                mine = Arrays.copyOf(mine, count * 2);
            }
            mine[count++] = partition;
        }

        void into(Map<Uuid, Set<Integer>> partitionsOf) {
            if (count == 0) {
                return;
            }
            Integer[] boxed = new Integer[count];
            for (int i = 0; i < count; i++) {
                boxed[i] = mine[i];
            }
            // Set.of: compact and immutable; the ids are distinct (checked above).
            partitionsOf.put(topic.id(), Set.of(boxed));
        }
    }

    private static void checkNothingRevoked(JsonParser json, JsonToken value) throws IOException, FallbackException {
        if (value == JsonToken.VALUE_NULL) {
            return;
        }
        if (value != JsonToken.START_OBJECT) {
            throw malformed("'revoked' is not an object");
        }
        while (json.nextToken() == JsonToken.FIELD_NAME) {
            if (json.nextToken() != JsonToken.START_OBJECT) {
                throw malformed("revoked['" + json.currentName() + "'] is not an object");
            }
            while (json.nextToken() == JsonToken.FIELD_NAME) {
                if (json.nextToken() != JsonToken.VALUE_STRING) {
                    throw malformed("'revoked' is not packed base64 arrays");
                }
                // Two base64 arrays, empty when nothing is withheld.
                if (!json.getText().isEmpty()) {
                    throw invalid("the answer withholds partitions in 'revoked'; the coordinator revokes "
                            + "partitions itself, so the answer must be the full target assignment");
                }
            }
        }
    }

    private static FallbackException malformed(String message) {
        return new FallbackException(Fault.MALFORMED, message);
    }

    private static FallbackException invalid(String message) {
        return new FallbackException(Fault.INVALID, message);
    }
}
