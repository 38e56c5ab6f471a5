package io.lagassign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The cooperative answer check: c-1 owns t0-0 and t0-1, c-2 owns t0-2, nobody owns t0-3. */
class CooperativeRulesTest {

    private static GroupView.Member member(String memberId, Map<String, List<Integer>> owned) {
        return new GroupView.Member(memberId, new TreeSet<>(List.of("t0")),
                new SubscriptionUserData(owned, 5, null, null), null);
    }

    private static final GroupView VIEW = new GroupView("orders", Map.of(
            "c-1", member("c-1", Map.of("t0", List.of(0, 1))),
            "c-2", member("c-2", Map.of("t0", List.of(2)))), Map.of("t0", 4));

    /** The packed answer giving {@code assignment} and withholding {@code revoked} ({@code {member: {topic: ids}}}). */
    private static byte[] answer(String assignment, String revoked) {
        try {
            ObjectNode request = UserDataJson.MAPPER.createObjectNode();
            request.putObject("partitions").put("t0", 4);
            ObjectNode answer = UserDataJson.MAPPER.createObjectNode().put("group_id", "orders")
                    .put("strategy", "balanced");
            answer.set("assignment", UserDataJson.MAPPER.readTree(assignment));
            answer.set("revoked", UserDataJson.MAPPER.readTree(revoked));
            return FakeSidecar.packed(request, answer).toString().getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aWithheldPartitionCountsAsPlacedAndIsGivenToNobody() throws FallbackException {
        AnswerReader.Answer read = AnswerReader.read(
                answer("{\"c-1\":{\"t0\":[0]},\"c-2\":{\"t0\":[2,3]}}", "{\"c-1\":{\"t0\":[1]}}"), VIEW, true);
        assertEquals(List.of(new TopicPartition("t0", 0)), read.assignment().get("c-1"));
        assertEquals(List.of(new TopicPartition("t0", 2), new TopicPartition("t0", 3)), read.assignment().get("c-2"));
    }

    /** The answer's refusal (INVALID) in a cooperative rebalance. */
    private static FallbackException refused(String assignment, String revoked) {
        FallbackException e = assertThrows(FallbackException.class,
                () -> AnswerReader.read(answer(assignment, revoked), VIEW, true));
        assertEquals(FallbackReason.INVALID, e.reason());
        return e;
    }

    @Test
    void theSameWithheldAnswerIsRefusedInAnEagerRebalance() {
        FallbackException e = assertThrows(FallbackException.class, () -> AnswerReader.read(
                answer("{\"c-1\":{\"t0\":[0]},\"c-2\":{\"t0\":[2,3]}}", "{\"c-1\":{\"t0\":[1]}}"), VIEW, false));
        assertEquals(FallbackReason.INVALID, e.reason());
    }

    @Test
    void aPartitionMovedStraightToAnotherOwnerIsRefused() {
        FallbackException e = refused("{\"c-1\":{\"t0\":[0]},\"c-2\":{\"t0\":[1,2,3]}}", "{}");
        assertTrue(e.getMessage().contains("moves t0-1 from [c-1] to 'c-2'"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        // withheld from a member that does not own it
        "{\"c-2\":{\"t0\":[1]}}",
        // withheld and also assigned
        "{\"c-1\":{\"t0\":[0,1]}}",
        // withheld from a member the request did not name
        "{\"c-9\":{\"t0\":[1]}}"})
    void aWrongWithholdingIsRefused(String revoked) {
        refused("{\"c-1\":{\"t0\":[0]},\"c-2\":{\"t0\":[2,3]}}", revoked);
    }

    @Test
    void aPartitionLeftOutAndNotWithheldIsStillRefused() {
        FallbackException e = refused("{\"c-1\":{\"t0\":[0]},\"c-2\":{\"t0\":[2,3]}}", "{}");
        assertTrue(e.getMessage().contains("t0-1 unassigned"), e.getMessage());
    }
}
