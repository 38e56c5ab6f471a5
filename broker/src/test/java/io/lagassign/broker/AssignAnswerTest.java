package io.lagassign.broker;

import static io.lagassign.broker.Groups.ORDERS;
import static io.lagassign.broker.Groups.PAYMENTS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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
        return AssignAnswer.read(json.replace("'", "\"").replace("O", O).replace("P", P)
                .getBytes(StandardCharsets.UTF_8), view());
    }

    private static Fault faultOf(String json) {
        return assertThrows(FallbackException.class, () -> read(json)).fault();
    }

    @Test
    void aValidHeterogeneousAnswerIsUsedAndIdleMembersGetNothing() throws FallbackException {
        AssignAnswer.Checked checked = read("{'group_id': 'orders', 'strategy': 'balanced', 'revoked': {},"
                + " 'assignment': {'c-1': {'O': [0, 2]}, 'c-2': {'O': [1], 'P': [0, 1]}}, 'stats': {'moved': 0}}");
        assertEquals("orders", checked.groupId());
        Map<String, Map<Uuid, Set<Integer>>> plain = Groups.plain(checked.assignment());
        assertEquals(Map.of(
                "c-1", Map.of(ORDERS, Set.of(0, 2)),
                "c-2", Map.of(ORDERS, Set.of(1), PAYMENTS, Set.of(0, 1)),
                "c-3", Map.of()), plain);
    }

    /** A member's packed arrays: base64 of little-endian 32-bit integers. */
    private static String packed(int... values) {
        java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(4 * values.length)
                .order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int value : values) {
            buffer.putInt(value);
        }
        return java.util.Base64.getEncoder().encodeToString(buffer.array());
    }

    @Test
    void aPackedAnswerIsReadByTopicIndex() throws FallbackException {
        // topics[0] is payments, topics[1] orders: the indices, not the order, name them.
        AssignAnswer.Checked checked = read("{'topics': ['P', 'O'], 'revoked': {'c-1': {'topic_indices': '', "
                + "'partitions': ''}}, 'assignment': {"
                + "'c-1': {'topic_indices': '" + packed(1) + "', 'partitions': '" + packed(0) + "'}, "
                + "'c-2': {'topic_indices': '" + packed(0, 0, 1, 1) + "', 'partitions': '" + packed(0, 1, 1, 2)
                + "'}}}");
        assertEquals(Map.of("c-1", Map.of(ORDERS, Set.of(0)), "c-2", Map.of(ORDERS, Set.of(1, 2),
                PAYMENTS, Set.of(0, 1)), "c-3", Map.of()), Groups.plain(checked.assignment()));
    }

    @Test
    void aPackedAnswerIsCheckedLikeANestedOne() {
        String head = "{'topics': ['P', 'O'], 'assignment': {'c-1': {'topic_indices': '" + packed(1)
                + "', 'partitions': '" + packed(0) + "'}, 'c-2': {'topic_indices': '";
        // orders-0 twice, a topic index past the end, arrays of different lengths, not base64, no topics.
        assertEquals(Fault.INVALID, faultOf(head + packed(0, 0, 1, 1, 1) + "', 'partitions': '"
                + packed(0, 1, 0, 1, 2) + "'}}}"));
        assertEquals(Fault.MALFORMED, faultOf(head + packed(0, 0, 2) + "', 'partitions': '" + packed(0, 1, 1) + "'}}}"));
        assertEquals(Fault.MALFORMED, faultOf(head + packed(0, 0) + "', 'partitions': '" + packed(0) + "'}}}"));
        assertEquals(Fault.MALFORMED, faultOf(head + "%%%" + "', 'partitions': '" + packed(0) + "'}}}"));
        assertEquals(Fault.MALFORMED, faultOf("{'assignment': {'c-1': {'topic_indices': '" + packed(1)
                + "', 'partitions': '" + packed(0) + "'}}}"));
        assertEquals(Fault.INVALID, faultOf("{'topics': ['P', 'O'], 'revoked': {'c-1': {'topic_indices': '"
                + packed(1) + "', 'partitions': '" + packed(0) + "'}}, 'assignment': {}}"));
    }

    @Test
    void aMemberMayGetNothingIfListed() throws FallbackException {
        AssignAnswer.Checked checked = read("{'assignment': {'c-1': {}, 'c-2': {'O': [0, 1, 2], 'P': [0, 1]}}}");
        assertTrue(Groups.plain(checked.assignment()).get("c-1").isEmpty());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "member missing        | {'assignment': {'c-2': {'O': [0, 1, 2], 'P': [0, 1]}}}",
        "partition missing     | {'assignment': {'c-1': {'O': [0]}, 'c-2': {'O': [1], 'P': [0, 1]}}}",
        "partition doubled     | {'assignment': {'c-1': {'O': [0, 1]}, 'c-2': {'O': [1, 2], 'P': [0, 1]}}}",
        "partition twice       | {'assignment': {'c-1': {'O': [0, 0]}, 'c-2': {'O': [1, 2], 'P': [0, 1]}}}",
        "not subscribed        | {'assignment': {'c-1': {'O': [0], 'P': [0]}, 'c-2': {'O': [1, 2], 'P': [1]}}}",
        "unknown topic         | {'assignment': {'c-1': {'O': [0], 'AAAAAAAAAAAAAAAAAAAAAA': [0]}, 'c-2': {'O': [1, 2], 'P': [0, 1]}}}",
        "topic named not by id | {'assignment': {'c-1': {'orders': [0]}, 'c-2': {'O': [1, 2], 'P': [0, 1]}}}",
        "unknown member        | {'assignment': {'c-1': {'O': [0]}, 'c-2': {'O': [1, 2], 'P': [0, 1]}, 'c-9': {}}}",
        "idle member named     | {'assignment': {'c-1': {'O': [0]}, 'c-2': {'O': [1, 2], 'P': [0, 1]}, 'c-3': {}}}",
        "partition too high    | {'assignment': {'c-1': {'O': [0, 3]}, 'c-2': {'O': [1, 2], 'P': [0, 1]}}}",
        "negative partition    | {'assignment': {'c-1': {'O': [0, -1]}, 'c-2': {'O': [1, 2], 'P': [0, 1]}}}",
        "withheld in revoked   | {'assignment': {'c-1': {'O': [0]}, 'c-2': {'O': [1, 2], 'P': [0, 1]}}, 'revoked': {'c-1': {'O': [2]}}}",
    })
    void anAnswerThatBreaksTheSpecIsInvalid(String why, String json) {
        assertEquals(Fault.INVALID, faultOf(json), why);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "not JSON              | {'assignment': ",
        "a list                | [1, 2]",
        "no assignment         | {'strategy': 'balanced'}",
        "assignment a list     | {'assignment': []}",
        "member a list         | {'assignment': {'c-1': [0]}}",
        "partitions not a list | {'assignment': {'c-1': {'O': 0}}}",
        "partition a string    | {'assignment': {'c-1': {'O': ['0']}}}",
        "partition a float     | {'assignment': {'c-1': {'O': [0.5]}}}",
        "partition too big     | {'assignment': {'c-1': {'O': [99999999999]}}}",
        "member twice          | {'assignment': {'c-1': {'O': [0]}, 'c-1': {'O': [1]}}}",
        "trailing content      | {'assignment': {'c-1': {'O': [0]}, 'c-2': {'O': [1, 2], 'P': [0, 1]}}} {}",
        "revoked a list        | {'revoked': [], 'assignment': {'c-1': {'O': [0]}, 'c-2': {'O': [1, 2], 'P': [0, 1]}}}",
    })
    void anAnswerOfTheWrongShapeIsMalformed(String why, String json) {
        assertEquals(Fault.MALFORMED, faultOf(json), why);
    }

    @Test
    void emptyBodyIsMalformed() {
        assertEquals(Fault.MALFORMED, faultOf(""));
    }
}
