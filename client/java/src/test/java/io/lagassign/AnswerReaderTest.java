package io.lagassign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class AnswerReaderTest {

    private static GroupView.Member member(String memberId, String... topics) {
        return new GroupView.Member(memberId, new TreeSet<>(List.of(topics)), SubscriptionUserData.NOTHING_KNOWN, null);
    }

    private static final GroupView VIEW = new GroupView("orders", Map.of(
            "c-1", member("c-1", "t0", "t1"),
            "c-2", member("c-2", "t0"),
            "c-3", member("c-3", "t0", "unknown")), Map.of("t0", 4, "t1", 2));

    private static byte[] answer(String assignment) {
        return ("{\"group_id\":\"orders\",\"strategy\":\"balanced\",\"assignment\":" + assignment + "}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static final List<String> TOPICS = List.of("t0", "t1", "unknown");

    /** The same answer in the {@code indexed} form, topics named by their place in {@link #TOPICS}. */
    private static byte[] indexed(String assignment) {
        try {
            JsonNode nested = UserDataJson.MAPPER.readTree(assignment);
            ObjectNode request = UserDataJson.MAPPER.createObjectNode().put("answer_form", "indexed");
            ObjectNode partitions = request.putObject("partitions");
            TOPICS.forEach(topic -> partitions.put(topic, 1));
            ObjectNode answer = UserDataJson.MAPPER.createObjectNode().put("strategy", "balanced");
            answer.set("assignment", nested);
            answer.putObject("revoked");
            return FakeSidecar.inRequestedForm(request, answer).toString().getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] inForm(String form, String assignment) {
        return "indexed".equals(form) ? indexed(assignment) : answer(assignment);
    }

    private static FallbackReason refusal(byte[] body) {
        return assertThrows(FallbackException.class, () -> AnswerReader.read(body, VIEW)).reason();
    }

    @Test
    void aValidAnswerIsUsedAsGiven() throws FallbackException {
        AnswerReader.Answer read = AnswerReader.read(
                answer("{\"c-1\":{\"t0\":[3,0],\"t1\":[0,1]},\"c-2\":{\"t0\":[1]},\"c-3\":{\"t0\":[2]}}"), VIEW);
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
                answer("{\"c-1\":{\"t0\":[0,1,2,3],\"t1\":[0,1]},\"c-2\":{},\"c-3\":{\"t0\":[]}}"), VIEW);
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

    @ParameterizedTest
    @ValueSource(strings = {"topics", "indexed"})
    void bothFormsReadAsTheSameAssignment(String form) throws FallbackException {
        AnswerReader.Answer read = AnswerReader.read(
                inForm(form, "{\"c-1\":{\"t0\":[0,3],\"t1\":[0,1]},\"c-2\":{\"t0\":[1]},\"c-3\":{\"t0\":[2]}}"),
                VIEW);
        Map<String, List<TopicPartition>> expected = new TreeMap<>();
        expected.put("c-1", List.of(new TopicPartition("t0", 0), new TopicPartition("t0", 3),
                new TopicPartition("t1", 0), new TopicPartition("t1", 1)));
        expected.put("c-2", List.of(new TopicPartition("t0", 1)));
        expected.put("c-3", List.of(new TopicPartition("t0", 2)));
        assertEquals(expected, read.assignment());
        assertEquals("balanced", read.strategy());
    }

    @Test
    void theIndexedFormNamesTopicsByTheirPlaceInTopics() throws FallbackException {
        byte[] body = ("{\"assignment\":{\"c-1\":[[0,[0,1]],[1,[3]]],\"c-2\":[[1,[0,1]]],\"c-3\":[[1,[2]]]},"
                + "\"topics\":[\"t1\",\"t0\"],\"revoked\":{\"c-1\":[],\"c-2\":[],\"c-3\":[]}}")
                .getBytes(StandardCharsets.UTF_8);
        Map<String, List<TopicPartition>> assignment = AnswerReader.read(body, VIEW).assignment();
        assertEquals(List.of(new TopicPartition("t0", 3), new TopicPartition("t1", 0), new TopicPartition("t1", 1)),
                assignment.get("c-1"));
        assertEquals(List.of(new TopicPartition("t0", 0), new TopicPartition("t0", 1)), assignment.get("c-2"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"topics\": \"t0\", \"assignment\": {}}",
        "{\"topics\": [\"t0\", 1], \"assignment\": {}}",
        "{\"topics\": [\"t0\"], \"assignment\": {\"c-1\": {\"t0\": [0]}}}",
        "{\"assignment\": {\"c-1\": [[0, [0]]]}}",
        "{\"topics\": [\"t0\"], \"assignment\": {\"c-1\": [0]}}",
        "{\"topics\": [\"t0\"], \"assignment\": {\"c-1\": [[0]]}}",
        "{\"topics\": [\"t0\"], \"assignment\": {\"c-1\": [[0, [0], 1]]}}",
        "{\"topics\": [\"t0\"], \"assignment\": {\"c-1\": [[1, [0]]]}}",
        "{\"topics\": [\"t0\"], \"assignment\": {\"c-1\": [[-1, [0]]]}}",
        "{\"topics\": [\"t0\"], \"assignment\": {\"c-1\": [[true, [0]]]}}",
        "{\"topics\": [\"t0\"], \"assignment\": {\"c-1\": [[0.0, [0]]]}}",
        "{\"topics\": [\"t0\"], \"assignment\": {\"c-1\": [[0, \"0\"]]}}",
        "{\"topics\": [\"t0\"], \"assignment\": {\"c-1\": [[0, [0, true]]]}}",
        "{\"topics\": [\"t0\"], \"assignment\": {\"c-1\": [[0, [1.0]]]}}",
        "{\"topics\": [\"t0\"], \"assignment\": {\"c-1\": [[0, [4294967296]]]}}",
        "{\"topics\": [\"t0\"], \"assignment\": {\"c-1\": [[0, [0]], [0, [1]]]}}",
    })
    void malformedIndexedAnswersAreRefused(String body) {
        assertEquals(FallbackReason.MALFORMED, refusal(body.getBytes(StandardCharsets.UTF_8)));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "member missing        | {'c-1':{'t0':[0,1,2,3],'t1':[0,1]},'c-2':{}}",
        "unknown member        | {'c-1':{'t0':[0,1,2,3],'t1':[0,1]},'c-2':{},'c-3':{},'c-9':{}}",
        "partition missing     | {'c-1':{'t0':[0,1,2],'t1':[0,1]},'c-2':{},'c-3':{}}",
        "partition twice       | {'c-1':{'t0':[0,1,2,3],'t1':[0,1]},'c-2':{'t0':[3]},'c-3':{}}",
        "twice to one member   | {'c-1':{'t0':[0,0,1,2,3],'t1':[0,1]},'c-2':{},'c-3':{}}",
        "not subscribed        | {'c-1':{'t0':[0,1,2,3]},'c-2':{'t1':[0,1]},'c-3':{}}",
        "beyond the count      | {'c-1':{'t0':[0,1,2,3],'t1':[0,1,2]},'c-2':{},'c-3':{}}",
        "negative partition    | {'c-1':{'t0':[-1,0,1,2,3],'t1':[0,1]},'c-2':{},'c-3':{}}",
        "topic without metadata| {'c-1':{'t0':[0,1,2,3],'t1':[0,1]},'c-2':{},'c-3':{'unknown':[0]}}",
    })
    void invalidAnswersAreRefused(String rule, String assignment) {
        assertEquals(FallbackReason.INVALID, refusal(answer(assignment.replace('\'', '"'))), rule);
        assertEquals(FallbackReason.INVALID, refusal(indexed(assignment.replace('\'', '"'))), rule + " (indexed)");
    }

    @Test
    void withheldPartitionsAreRefusedInAnEagerRebalance() {
        byte[] body = ("{\"assignment\":{\"c-1\":{\"t0\":[0,1,2],\"t1\":[0,1]},\"c-2\":{},\"c-3\":{}},"
                + "\"revoked\":{\"c-2\":{\"t0\":[3]}}}").getBytes(StandardCharsets.UTF_8);
        assertEquals(FallbackReason.INVALID, refusal(body));
    }
}
