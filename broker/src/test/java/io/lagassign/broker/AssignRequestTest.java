package io.lagassign.broker;

import static io.lagassign.broker.Groups.ORDERS;
import static io.lagassign.broker.Groups.PAYMENTS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AssignRequestTest {
    private static final String O = ORDERS.toString();
    private static final String P = PAYMENTS.toString();

    private static String json(String singleQuoted) {
        return singleQuoted.replace("'", "\"").replace("O", O).replace("P", P);
    }

    @Test
    void membersTopicIdsOwnedAndCountsWithoutGroupId() throws FallbackException {
        Groups.Spec spec = Groups.group().topic(ORDERS, 3).topic(PAYMENTS, 2)
                .member("c-2", "instance-2", null, Set.of(ORDERS, PAYMENTS),
                        Map.of(ORDERS, Set.of(2, 1), PAYMENTS, Set.of(0)))
                .member("c-1", null, null, Set.of(ORDERS), Map.of(ORDERS, Set.of(0), PAYMENTS, Set.of(1)))
                .member("c-0", Set.of());
        String body = new String(AssignRequest.encode(GroupView.of(spec.spec(), spec.describer())),
                StandardCharsets.UTF_8);
        String topics = O.compareTo(P) < 0 ? "'O', 'P'" : "'P', 'O'";
        String owned2 = O.compareTo(P) < 0 ? "'O': [1, 2], 'P': [0]" : "'P': [0], 'O': [1, 2]";
        String counts = O.compareTo(P) < 0 ? "'O': 3, 'P': 2" : "'P': 2, 'O': 3";
        // c-0 subscribes to nothing that exists: not asked about. c-1's owned payments-1 is not
        // in its subscription: left out.
        // The compact form: each topic list once, members name theirs by position; a packed answer.
        assertEquals(json("{'topic_ids': true, 'answer_form': 'packed', 'subscriptions': [['O'], [" + topics + "]], "
                + "'members': ["
                + "{'member_id': 'c-1', 'group_instance_id': null, 'rack': null, 'subscription': 0, 'owned': {'O': [0]}}, "
                + "{'member_id': 'c-2', 'group_instance_id': 'instance-2', 'rack': null, 'subscription': 1, "
                + "'owned': {" + owned2 + "}}], 'partitions': {" + counts + "}}").replace(" ", ""), body);
    }

    @Test
    void membersSharingASubscriptionShareOneEntry() throws FallbackException {
        Groups.Spec spec = Groups.group().topic(ORDERS, 4).topic(PAYMENTS, 2)
                .member("c-1", Set.of(ORDERS, PAYMENTS)).member("c-2", Set.of(ORDERS, PAYMENTS))
                .member("c-3", Set.of(ORDERS)).member("c-4", Set.of(PAYMENTS, ORDERS));
        String body = new String(AssignRequest.encode(GroupView.of(spec.spec(), spec.describer())),
                StandardCharsets.UTF_8);
        String both = O.compareTo(P) < 0 ? "['O','P']" : "['P','O']";
        assertTrue(body.contains(json("'subscriptions':[" + both + ",['O']]")), body);
        assertEquals(List.of(0, 0, 1, 0), java.util.regex.Pattern.compile("\"subscription\":(\\d+)").matcher(body)
                .results().map(r -> Integer.parseInt(r.group(1))).toList());
    }

    @Test
    void replicaRacksGoAlongWhenAMemberHasARack() throws FallbackException {
        Groups.Spec spec = Groups.group().topic(ORDERS, 2)
                .racks(ORDERS, List.of(Set.of("b", "a"), Set.of("c")))
                .member("c-1", null, "a", Set.of(ORDERS), Map.of());
        String body = new String(AssignRequest.encode(GroupView.of(spec.spec(), spec.describer())),
                StandardCharsets.UTF_8);
        assertTrue(body.contains(json("'rack':'a'")), body);
        assertTrue(body.endsWith(json("'partition_racks':{'O':[['a','b'],['c']]}}")), body);
    }

    @Test
    void racksAreLeftOutWhenNoMemberHasOne() throws FallbackException {
        Groups.Spec spec = Groups.group().topic(ORDERS, 2)
                .racks(ORDERS, List.of(Set.of("a"), Set.of("c")))
                .member("c-1", Set.of(ORDERS));
        String body = new String(AssignRequest.encode(GroupView.of(spec.spec(), spec.describer())),
                StandardCharsets.UTF_8);
        assertTrue(!body.contains("partition_racks"), body);
    }

    @Test
    void theSameSpecGivesTheSameBytes() throws FallbackException {
        Groups.Spec spec = Groups.group().topic(ORDERS, 4).topic(PAYMENTS, 4);
        for (int m = 0; m < 20; m++) {
            spec.member("c-" + m, null, null, Set.of(ORDERS, PAYMENTS), Map.of(ORDERS, Set.of(m % 4)));
        }
        byte[] first = AssignRequest.encode(GroupView.of(spec.spec(), spec.describer()));
        byte[] second = AssignRequest.encode(GroupView.of(spec.spec(), spec.describer()));
        assertArrayEquals(first, second);
    }

    @Test
    void aBigGroupStopsWritingOnceTheDeadlineHasPassed() throws FallbackException {
        Groups.Spec spec = Groups.group().topic(ORDERS, 1000);
        for (int m = 0; m < 200; m++) {
            spec.member("c-" + m, Set.of(ORDERS));
        }
        GroupView view = GroupView.of(spec.spec(), spec.describer());
        FallbackException e = assertThrows(FallbackException.class,
                () -> AssignRequest.encode(view, System.nanoTime() - 1));
        assertEquals(Fault.TIMEOUT, e.fault());
        assertTrue(AssignRequest.encode(view, System.nanoTime() + 60_000_000_000L).length > 0);
    }

    @Test
    void aSubscribedTopicTheMetadataLacksIsLeftToKafka() {
        Groups.Spec spec = Groups.group().topic(ORDERS, 2).member("c-1", Set.of(ORDERS, PAYMENTS));
        FallbackException e = assertThrows(FallbackException.class,
                () -> GroupView.of(spec.spec(), spec.describer()));
        assertEquals(Fault.METADATA, e.fault());
    }
}
