package io.lagassign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class AnswerReaderTest {

    private static GroupView.Member member(String memberId, String... topics) {
        return new GroupView.Member(memberId, new TreeSet<>(List.of(topics)), SubscriptionUserData.NOTHING_KNOWN, null);
    }

    private static final GroupView VIEW = new GroupView("orders", Map.of(
            "c-1", member("c-1", "t0", "t1"),
            "c-2", member("c-2", "t0"),
            "c-3", member("c-3", "t0", "unknown")), Map.of("t0", 4, "t1", 2));

    private static final List<String> TOPICS = List.of("t0", "t1", "unknown");

    /**
     * The answer {@code assignment} ({@code {member: {topic: [partition, ...]}}}) in the packed
     * form, topics named by their place in {@link #TOPICS}, as a sidecar sends it.
     */
    private static byte[] packed(String assignment) {
        try {
            JsonNode nested = UserDataJson.MAPPER.readTree(assignment);
            ObjectNode request = UserDataJson.MAPPER.createObjectNode();
            ObjectNode partitions = request.putObject("partitions");
            TOPICS.forEach(topic -> partitions.put(topic, 1));
            ObjectNode answer = UserDataJson.MAPPER.createObjectNode().put("strategy", "balanced");
            answer.set("assignment", nested);
            answer.putObject("revoked");
            return FakeSidecar.packed(request, answer).toString().getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static FallbackReason refusal(byte[] body) {
        return assertThrows(FallbackException.class, () -> AnswerReader.read(body, VIEW)).reason();
    }

    @Test
    void aValidAnswerIsUsedAsGiven() throws FallbackException {
        AnswerReader.Answer read = AnswerReader.read(
                packed("{\"c-1\":{\"t0\":[3,0],\"t1\":[0,1]},\"c-2\":{\"t0\":[1]},\"c-3\":{\"t0\":[2]}}"), VIEW);
        Map<String, List<TopicPartition>> expected = new TreeMap<>();
        expected.put("c-1", List.of(new TopicPartition("t0", 0), new TopicPartition("t0", 3),
                new TopicPartition("t1", 0), new TopicPartition("t1", 1)));
        expected.put("c-2", List.of(new TopicPartition("t0", 1)));
        expected.put("c-3", List.of(new TopicPartition("t0", 2)));
        assertEquals(expected, read.assignment());
        assertEquals("balanced", read.strategy());
    }

    @Test
    void aMemberMayGetNothing() throws FallbackException {
        AnswerReader.Answer read = AnswerReader.read(
                packed("{\"c-1\":{\"t0\":[0,1,2,3],\"t1\":[0,1]},\"c-2\":{},\"c-3\":{\"t0\":[]}}"), VIEW);
        assertTrue(read.assignment().get("c-2").isEmpty());
        assertTrue(read.assignment().get("c-3").isEmpty());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "",
        "<html>502 Bad Gateway</html>",
        "{\"assignment\": ",
        "[]",
        "{\"group_id\": \"orders\"}",
        "{\"assignment\": []}",
        "{\"assignment\": {\"c-1\": [0, 1]}}",
        "{\"assignment\": {\"c-1\": {\"t0\": \"0,1\"}}}",
        "{\"assignment\": {\"c-1\": {\"t0\": [0, \"1\"]}}}",
        "{\"assignment\": {\"c-1\": {\"t0\": [0, true]}}}",
        "{\"assignment\": {\"c-1\": {\"t0\": [0.0]}}}",
        "{\"assignment\": {}, \"revoked\": []}",
        "{\"assignment\": {}} trailing",
    })
    void malformedAnswersAreRefused(String body) {
        assertEquals(FallbackReason.MALFORMED, refusal(body.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * Each rule. A partition twice to one member is a pair twice (not strictly ascending) and
     * partition -1 is 2^32 - 1: both malformed.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "member missing        | INVALID   | {'c-1':{'t0':[0,1,2,3],'t1':[0,1]},'c-2':{}}",
        "unknown member        | INVALID   | {'c-1':{'t0':[0,1,2,3],'t1':[0,1]},'c-2':{},'c-3':{},'c-9':{}}",
        "partition missing     | INVALID   | {'c-1':{'t0':[0,1,2],'t1':[0,1]},'c-2':{},'c-3':{}}",
        "partition twice       | INVALID   | {'c-1':{'t0':[0,1,2,3],'t1':[0,1]},'c-2':{'t0':[3]},'c-3':{}}",
        "twice to one member   | MALFORMED | {'c-1':{'t0':[0,0,1,2,3],'t1':[0,1]},'c-2':{},'c-3':{}}",
        "not subscribed        | INVALID   | {'c-1':{'t0':[0,1,2,3]},'c-2':{'t1':[0,1]},'c-3':{}}",
        "beyond the count      | INVALID   | {'c-1':{'t0':[0,1,2,3],'t1':[0,1,2]},'c-2':{},'c-3':{}}",
        "negative partition    | MALFORMED | {'c-1':{'t0':[-1,0,1,2,3],'t1':[0,1]},'c-2':{},'c-3':{}}",
        "topic without metadata| INVALID   | {'c-1':{'t0':[0,1,2,3],'t1':[0,1]},'c-2':{},'c-3':{'unknown':[0]}}",
    })
    void invalidAnswersAreRefused(String rule, FallbackReason reason, String assignment) {
        assertEquals(reason, refusal(packed(assignment.replace('\'', '"'))), rule);
    }

    @Test
    void withheldPartitionsAreRefusedInAnEagerRebalance() {
        byte[] body = ("{\"topics\":[\"t0\"],\"assignment\":{\"c-1\":"
                + packedMember(new int[] {0, 0, 0}, new int[] {0, 1, 2}) + ",\"c-2\":" + NOTHING + ",\"c-3\":"
                + NOTHING + "},\"revoked\":{\"c-2\":" + packedMember(new int[] {0}, new int[] {3}) + "}}")
                .getBytes(StandardCharsets.UTF_8);
        assertEquals(FallbackReason.INVALID, refusal(body));
    }

    // The packed form: {member: {"topic_indices": "<base64>", "partitions": "<base64>"}} beside 'topics'.

    /** One member's packed value: element i of both arrays is one (topic index, partition) pair. */
    private static String packedMember(int[] topicIndices, int[] partitions) {
        return packedMember(FakeSidecar.littleEndianBase64(topicIndices), FakeSidecar.littleEndianBase64(partitions));
    }

    private static String packedMember(String topicIndices, String partitions) {
        return "{\"topic_indices\":\"" + topicIndices + "\",\"partitions\":\"" + partitions + "\"}";
    }

    private static final String NOTHING = packedMember("", "");

    /** An answer with {@code topics} t1, t0 (in that order) and the members' values as given. */
    private static byte[] packedBody(String assignment) {
        return ("{\"topics\":[\"t1\",\"t0\"],\"assignment\":" + assignment + ",\"revoked\":{}}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static FallbackException refused(byte[] body) {
        return assertThrows(FallbackException.class, () -> AnswerReader.read(body, VIEW));
    }

    @Test
    void aPackedAnswerNamesTopicsByTheirPlaceInTopics() throws FallbackException {
        // The bytes as the sidecar writes them: c-1 gets (0, 0), (0, 1), (1, 3): t1-0, t1-1, t0-3.
        byte[] packed = packedBody("{\"c-1\":{\"topic_indices\":\"AAAAAAAAAAABAAAA\",\"partitions\":\"AAAAAAEAAAADAAAA\"},"
                + "\"c-2\":{\"topic_indices\":\"AQAAAAEAAAA=\",\"partitions\":\"AAAAAAEAAAA=\"},"
                + "\"c-3\":{\"topic_indices\":\"AQAAAA==\",\"partitions\":\"AgAAAA==\"}}");
        Map<String, List<TopicPartition>> assignment = AnswerReader.read(packed, VIEW).assignment();
        assertEquals(List.of(new TopicPartition("t0", 3), new TopicPartition("t1", 0), new TopicPartition("t1", 1)),
                assignment.get("c-1"));
        assertEquals(List.of(new TopicPartition("t0", 0), new TopicPartition("t0", 1)), assignment.get("c-2"));
        assertEquals(List.of(new TopicPartition("t0", 2)), assignment.get("c-3"));
    }

    @Test
    void aPackedMemberMayGetNothing() throws FallbackException {
        AnswerReader.Answer read = AnswerReader.read(packedBody("{\"c-1\":"
                + packedMember(new int[] {0, 0, 1, 1, 1, 1}, new int[] {0, 1, 0, 1, 2, 3})
                + ",\"c-2\":" + NOTHING + ",\"c-3\":" + NOTHING + "}"), VIEW);
        assertEquals(6, read.assignment().get("c-1").size());
        assertTrue(read.assignment().get("c-2").isEmpty());
        assertTrue(read.assignment().get("c-3").isEmpty());
    }

    /** c-1's packed value, wrong in one way, and the member the refusal must name. */
    static Stream<Arguments> malformedPackedMembers() {
        String one = FakeSidecar.littleEndianBase64(1);
        String zero = FakeSidecar.littleEndianBase64(0);
        return Stream.of(
            Arguments.of("not base64", "{'c-1':" + packedMember("!!!!", zero) + "}", "c-1"),
            Arguments.of("the URL-safe alphabet", "{'c-1':" + packedMember(zero, "_____w==") + "}", "c-1"),
            Arguments.of("base64 without its padding", "{'c-1':" + packedMember("AQAAAA", zero) + "}", "c-1"),
            Arguments.of("5 bytes", "{'c-1':" + packedMember(one, "AAAAAAA=") + "}", "c-1"),
            Arguments.of("2 bytes", "{'c-1':" + packedMember("AAA=", zero) + "}", "c-1"),
            Arguments.of("arrays of different lengths",
                    "{'c-1':" + packedMember(new int[] {1, 1}, new int[] {0}) + "}", "c-1"),
            Arguments.of("a topic index of 2^31",
                    "{'c-1':" + packedMember(new int[] {0x8000_0000}, new int[] {0}) + "}", "c-1"),
            Arguments.of("a partition of 2^32 - 1",
                    "{'c-1':" + packedMember(new int[] {1}, new int[] {-1}) + "}", "c-1"),
            Arguments.of("a topic index outside topics",
                    "{'c-1':" + packedMember(new int[] {2}, new int[] {0}) + "}", "c-1"),
            Arguments.of("a pair twice",
                    "{'c-1':" + packedMember(new int[] {1, 1}, new int[] {0, 0}) + "}", "c-1"),
            Arguments.of("partitions descending",
                    "{'c-1':" + packedMember(new int[] {1, 1}, new int[] {1, 0}) + "}", "c-1"),
            Arguments.of("topic indices descending",
                    "{'c-1':" + packedMember(new int[] {1, 0}, new int[] {0, 1}) + "}", "c-1"),
            Arguments.of("a string", "{'c-1':'" + zero + "'}", "c-1"),
            Arguments.of("null", "{'c-1':null}", "c-1"),
            Arguments.of("an empty object", "{'c-1':{}}", "c-1"),
            Arguments.of("no partitions", "{'c-1':{'topic_indices':''}}", "c-1"),
            Arguments.of("no topic indices", "{'c-1':{'partitions':''}}", "c-1"),
            Arguments.of("another field", "{'c-1':{'topic_indices':'','partitions':'','owner':''}}", "c-1"),
            Arguments.of("a field twice", "{'c-1':{'topic_indices':'','partitions':'','partitions':''}}", "c-1"),
            Arguments.of("a number", "{'c-1':{'topic_indices':0,'partitions':''}}", "c-1"),
            Arguments.of("a list", "{'c-1':{'topic_indices':'','partitions':[]}}", "c-1"),
            Arguments.of("an object", "{'c-1':{'topic_indices':'','partitions':{}}}", "c-1"),
            Arguments.of("null partitions", "{'c-1':{'topic_indices':'','partitions':null}}", "c-1"),
            Arguments.of("the topics form", "{'c-1':" + NOTHING + ",'c-2':{'t0':[0]}}", "c-2"),
            Arguments.of("the indexed form", "{'c-1':" + NOTHING + ",'c-2':[[1,[0]]]}", "c-2"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedPackedMembers")
    void malformedPackedMembersAreRefusedByName(String malformation, String assignment, String memberId) {
        FallbackException e = refused(packedBody(assignment.replace('\'', '"')));
        assertEquals(FallbackReason.MALFORMED, e.reason(), e.getMessage());
        assertTrue(e.getMessage().contains("['" + memberId + "']"), e.getMessage());
    }

    @Test
    void aPackedAnswerWithoutTopicsIsRefused() {
        byte[] body = ("{\"assignment\":{\"c-1\":" + NOTHING + "}}").getBytes(StandardCharsets.UTF_8);
        FallbackException e = refused(body);
        assertEquals(FallbackReason.MALFORMED, e.reason());
        assertTrue(e.getMessage().contains("no 'topics' list"), e.getMessage());
    }

    @Test
    void aPartitionPackedTwiceAcrossMembersIsRefused() {
        FallbackException e = refused(packedBody("{\"c-1\":"
                + packedMember(new int[] {0, 0, 1, 1, 1, 1}, new int[] {0, 1, 0, 1, 2, 3})
                + ",\"c-2\":" + packedMember(new int[] {1}, new int[] {3}) + ",\"c-3\":" + NOTHING + "}"));
        assertEquals(FallbackReason.INVALID, e.reason());
        assertTrue(e.getMessage().contains("t0-3 to both 'c-1' and 'c-2'"), e.getMessage());
    }

    @Test
    void aPackedTopicTheMemberIsNotSubscribedToIsRefused() {
        FallbackException e = refused(packedBody("{\"c-1\":" + packedMember(new int[] {1, 1, 1, 1}, new int[] {0, 1, 2, 3})
                + ",\"c-2\":" + packedMember(new int[] {0, 0}, new int[] {0, 1}) + ",\"c-3\":" + NOTHING + "}"));
        assertEquals(FallbackReason.INVALID, e.reason());
        assertTrue(e.getMessage().contains("gives 't1' to 'c-2', not subscribed"), e.getMessage());
    }

    // Cooperative, packed: c-1 owns t0-0 and t0-1, c-2 owns t0-2, nobody owns t0-3; topics ["t0"].

    private static GroupView.Member owner(String memberId, List<Integer> owned) {
        return new GroupView.Member(memberId, new TreeSet<>(List.of("t0")),
                new SubscriptionUserData(Map.of("t0", owned), 5, null, null), null);
    }

    private static final GroupView OWNED = new GroupView("orders", Map.of(
            "c-1", owner("c-1", List.of(0, 1)), "c-2", owner("c-2", List.of(2))), Map.of("t0", 4));

    /** A packed answer over topic t0 alone: each member's partitions of t0, given and withheld. */
    private static byte[] packedT0(int[] c1, int[] c2, int[] c1Revoked, int[] c2Revoked) {
        return ("{\"topics\":[\"t0\"],\"assignment\":{\"c-1\":" + packedMember(new int[c1.length], c1)
                + ",\"c-2\":" + packedMember(new int[c2.length], c2) + "},\"revoked\":{\"c-1\":"
                + packedMember(new int[c1Revoked.length], c1Revoked) + ",\"c-2\":"
                + packedMember(new int[c2Revoked.length], c2Revoked) + "}}").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aPartitionWithheldInPackedFormCountsAsPlaced() throws FallbackException {
        byte[] body = packedT0(new int[] {0}, new int[] {2, 3}, new int[] {1}, new int[0]);
        AnswerReader.Answer read = AnswerReader.read(body, OWNED, true);
        assertEquals(List.of(new TopicPartition("t0", 0)), read.assignment().get("c-1"));
        assertEquals(List.of(new TopicPartition("t0", 2), new TopicPartition("t0", 3)), read.assignment().get("c-2"));
        FallbackException eager = assertThrows(FallbackException.class, () -> AnswerReader.read(body, OWNED, false));
        assertEquals(FallbackReason.INVALID, eager.reason());
        assertTrue(eager.getMessage().contains("withholds"), eager.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "withheld from a member that does not own it | 0     | 2,3 |     | 1",
        "withheld and also assigned                  | 0     | 2,3 | 0,1 |",
        "moved straight to another owner             | 0     | 1,2,3 |   |",
    })
    void aWrongPackedWithholdingIsRefused(String rule, String c1, String c2, String c1Revoked, String c2Revoked) {
        byte[] body = packedT0(ids(c1), ids(c2), ids(c1Revoked), ids(c2Revoked));
        FallbackException e = assertThrows(FallbackException.class, () -> AnswerReader.read(body, OWNED, true));
        assertEquals(FallbackReason.INVALID, e.reason(), rule + ": " + e.getMessage());
    }

    private static int[] ids(String list) {
        return list == null ? new int[0] : Arrays.stream(list.split(",")).mapToInt(Integer::parseInt).toArray();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{'topic_indices':'!!!!','partitions':'AQAAAA=='}",
        "{'topic_indices':'AQAAAA==','partitions':'AQAAAA=='}",
        "{'topic_indices':'AAAAAAAAAAA=','partitions':'AQAAAA=='}",
        "{'topic_indices':'AAAAAA=='}",
    })
    void aMalformedPackedRevokedIsRefusedByName(String revoked) {
        byte[] body = ("{\"topics\":[\"t0\"],\"assignment\":{\"c-1\":"
                + packedMember(new int[] {0}, new int[] {0}) + ",\"c-2\":"
                + packedMember(new int[] {0, 0}, new int[] {2, 3}) + "},\"revoked\":{\"c-1\":"
                + revoked.replace('\'', '"') + "}}").getBytes(StandardCharsets.UTF_8);
        FallbackException e = assertThrows(FallbackException.class, () -> AnswerReader.read(body, OWNED, true));
        assertEquals(FallbackReason.MALFORMED, e.reason(), e.getMessage());
        assertTrue(e.getMessage().contains("revoked['c-1']"), e.getMessage());
    }
}
