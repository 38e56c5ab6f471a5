package io.lagassign.broker;

import static io.lagassign.broker.Groups.ORDERS;
import static io.lagassign.broker.Groups.PAYMENTS;
import static io.lagassign.broker.Groups.packed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class AssignAnswerTest {
    private static final String O = ORDERS.toString();
    private static final String P = PAYMENTS.toString();

    /** c-1 and c-2 read orders (3 partitions); c-2 also payments (2); c-3 reads a topic that is gone. */
    private static GroupView view() throws FallbackException {
        Groups.Spec spec = Groups.group().topic(ORDERS, 3).topic(PAYMENTS, 2)
                .member("c-1", Set.of(ORDERS))
                .member("c-2", Set.of(ORDERS, PAYMENTS))
                .member("c-3", Set.of());
        return GroupView.of(spec.spec(), spec.describer());
    }

    private static AssignAnswer.Checked read(String json) throws FallbackException {
        // 'O' and 'P' (quoted: base64 has the letters too) name the topics by id.
        return AssignAnswer.read(json.replace("'O'", "'" + O + "'").replace("'P'", "'" + P + "'").replace("'", "\"")
                .getBytes(StandardCharsets.UTF_8), view());
    }

    private static Fault faultOf(String json) {
        return assertThrows(FallbackException.class, () -> read(json)).fault();
    }

    /** A packed member over topics O (index 0) and P (index 1): its (topic index, partition) pairs. */
    private static String member(String memberId, int... pairs) {
        int[] topicIndices = new int[pairs.length / 2];
        int[] partitions = new int[pairs.length / 2];
        for (int i = 0; i < topicIndices.length; i++) {
            topicIndices[i] = pairs[2 * i];
            partitions[i] = pairs[2 * i + 1];
        }
        return "'" + memberId + "': {'topic_indices': '" + packed(topicIndices) + "', 'partitions': '"
                + packed(partitions) + "'}";
    }

    /** The usual valid answer's c-2: orders 1, 2 and payments 0, 1. */
    private static final String C2 = member("c-2", 0, 1, 0, 2, 1, 0, 1, 1);

    private static String answer(String... members) {
        return "{'topics': ['O', 'P'], 'revoked': {}, 'assignment': {" + String.join(", ", members) + "}}";
    }

    @Test
    void aValidHeterogeneousAnswerIsUsedAndIdleMembersGetNothing() throws FallbackException {
        AssignAnswer.Checked checked = read("{'group_id': 'orders', 'strategy': 'balanced', 'topics': ['O', 'P'],"
                + " 'revoked': {}, 'assignment': {" + member("c-1", 0, 0, 0, 2) + ", "
                + member("c-2", 0, 1, 1, 0, 1, 1) + "}, 'stats': {'moved': 0}}");
        assertEquals("orders", checked.groupId());
        assertEquals(Map.of(
                "c-1", Map.of(ORDERS, Set.of(0, 2)),
                "c-2", Map.of(ORDERS, Set.of(1), PAYMENTS, Set.of(0, 1)),
                "c-3", Map.of()), Groups.plain(checked.assignment()));
    }

    @Test
    void theTopicIndicesNotTheOrderNameTheTopics() throws FallbackException {
        // topics[0] is payments, topics[1] orders.
        AssignAnswer.Checked checked = read("{'topics': ['P', 'O'], 'revoked': {'c-1': {'topic_indices': '', "
                + "'partitions': ''}}, 'assignment': {" + member("c-1", 1, 0) + ", " + member("c-2", 0, 0, 0, 1, 1, 1, 1, 2)
                + "}}");
        assertEquals(Map.of("c-1", Map.of(ORDERS, Set.of(0)), "c-2", Map.of(ORDERS, Set.of(1, 2),
                PAYMENTS, Set.of(0, 1)), "c-3", Map.of()), Groups.plain(checked.assignment()));
    }

    @Test
    void aMemberMayGetNothingIfListed() throws FallbackException {
        AssignAnswer.Checked checked = read(answer(member("c-1"), member("c-2", 0, 0, 0, 1, 0, 2, 1, 0, 1, 1)));
        assertTrue(Groups.plain(checked.assignment()).get("c-1").isEmpty());
    }

    static Stream<Arguments> invalidAnswers() {
        return Stream.of(
            Arguments.of("member missing", answer(member("c-2", 0, 0, 0, 1, 0, 2, 1, 0, 1, 1))),
            Arguments.of("partition missing", answer(member("c-1"), C2)),
            Arguments.of("partition twice", answer(member("c-1", 0, 0, 0, 1), C2)),
            Arguments.of("not subscribed", answer(member("c-1", 0, 0, 1, 0), member("c-2", 0, 1, 0, 2, 1, 1))),
            Arguments.of("unknown topic", "{'topics': ['O', 'P', 'AAAAAAAAAAAAAAAAAAAAAA'], 'assignment': {"
                    + member("c-1", 0, 0, 2, 0) + ", " + C2 + "}}"),
            Arguments.of("topic named not by id", "{'topics': ['orders', 'O', 'P'], 'assignment': {"
                    + member("c-1", 0, 0) + ", " + C2 + "}}"),
            Arguments.of("unknown member", answer(member("c-1", 0, 0), C2, member("c-9"))),
            Arguments.of("idle member named", answer(member("c-1", 0, 0), C2, member("c-3"))),
            Arguments.of("partition too high", answer(member("c-1", 0, 0, 0, 3), C2)),
            Arguments.of("partition 2^32 - 1", answer(member("c-1", 0, 0, 0, -1), C2)),
            Arguments.of("withheld in revoked", answer(member("c-1", 0, 0), C2).replace("'revoked': {}",
                    "'revoked': {" + member("c-1", 0, 2) + "}")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidAnswers")
    void anAnswerThatBreaksTheSpecIsInvalid(String why, String json) {
        assertEquals(Fault.INVALID, faultOf(json), why);
    }

    static Stream<Arguments> malformedAnswers() {
        String c1 = member("c-1", 0, 0);
        return Stream.of(
            Arguments.of("not JSON", "{'assignment': "),
            Arguments.of("a list", "[1, 2]"),
            Arguments.of("no assignment", "{'topics': ['O', 'P'], 'strategy': 'balanced'}"),
            Arguments.of("assignment a list", "{'topics': ['O', 'P'], 'assignment': []}"),
            Arguments.of("no topics", "{'assignment': {" + c1 + ", " + C2 + "}}"),
            Arguments.of("member a list", answer("'c-1': [0]", C2)),
            Arguments.of("the topics form", answer("'c-1': {'O': [0]}", C2)),
            Arguments.of("an array a list", answer("'c-1': {'topic_indices': [0], 'partitions': [0]}", C2)),
            Arguments.of("one array", answer("'c-1': {'topic_indices': '" + packed(0) + "'}", C2)),
            Arguments.of("another field", answer("'c-1': {'topic_indices': '', 'partitions': '', 'x': ''}", C2)),
            Arguments.of("not base64", answer("'c-1': {'topic_indices': '%%%', 'partitions': '" + packed(0) + "'}", C2)),
            Arguments.of("base64 without padding", answer("'c-1': {'topic_indices': 'AAAAAA', 'partitions': 'AAAAAA'}",
                    C2)),
            Arguments.of("not whole numbers", answer("'c-1': {'topic_indices': 'AAA=', 'partitions': 'AAA='}", C2)),
            Arguments.of("arrays of different lengths", answer("'c-1': {'topic_indices': '" + packed(0, 0)
                    + "', 'partitions': '" + packed(0) + "'}", C2)),
            Arguments.of("a topic index past topics", answer(member("c-1", 0, 0, 2, 0), C2)),
            Arguments.of("not ascending", answer(member("c-1", 0, 1, 0, 0), C2)),
            Arguments.of("a pair twice", answer(member("c-1", 0, 0, 0, 0), C2)),
            Arguments.of("member twice", answer(c1, c1, C2)),
            Arguments.of("trailing content", answer(c1, C2) + " {}"),
            Arguments.of("revoked a list", answer(c1, C2).replace("'revoked': {}", "'revoked': []")),
            Arguments.of("revoked the topics form", answer(c1, C2).replace("'revoked': {}",
                    "'revoked': {'c-1': {'O': []}}")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedAnswers")
    void anAnswerOfTheWrongShapeIsMalformed(String why, String json) {
        assertEquals(Fault.MALFORMED, faultOf(json), why);
    }

    @Test
    void emptyBodyIsMalformed() {
        assertEquals(Fault.MALFORMED, faultOf(""));
    }
}
