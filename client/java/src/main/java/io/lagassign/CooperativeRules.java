package io.lagassign;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/**
 * The cooperative protocol's rules for one answer, checked by the leader before it uses it.
 *
 * <p>In a cooperative rebalance a member keeps consuming what it owns while the group rebalances,
 * so a partition may not go straight from one owner to another: its owner gives it up this round
 * (the answer withholds it under {@code revoked}) and the next rebalance, which Kafka's consumer
 * starts when it revokes, gives it to its new member. Example: c-1 owns t-0 and t-1, c-2 owns
 * nothing; the answer {@code c-1 = [t-0], c-2 = [], revoked = {c-1: [t-1]}} keeps the rules, while
 * {@code c-1 = [t-0], c-2 = [t-1]} breaks them (t-1 would be consumed by both for a moment).
 */
final class CooperativeRules {

    private CooperativeRules() {
    }

    /**
     * @param view       the request's group, with what each member owns
     * @param assignment member to assigned partitions, already checked for known ids
     * @param withheld   member to partitions withheld from it
     * @throws FallbackException (INVALID) when a withheld partition is not owned by its member or is
     *     also assigned, or an assigned partition moves straight from another owner
     */
    static void check(GroupView view, Map<String, List<TopicPartition>> assignment,
            Map<String, List<TopicPartition>> withheld) throws FallbackException {
        Map<TopicPartition, Set<String>> ownersOf = new TreeMap<>(CooperativeRules::compare);
        view.members().forEach((memberId, member) -> member.userData().owned().forEach((topic, ps) ->
                ps.forEach(p -> ownersOf.computeIfAbsent(new TopicPartition(topic, p), tp -> new TreeSet<>())
                        .add(memberId))));
        Map<TopicPartition, String> owner = new TreeMap<>(CooperativeRules::compare);
        assignment.forEach((memberId, partitions) -> partitions.forEach(tp -> owner.put(tp, memberId)));
        for (Map.Entry<String, List<TopicPartition>> member : withheld.entrySet()) {
            String memberId = member.getKey();
            if (!view.members().containsKey(memberId)) {
                throw AnswerReader.invalid("the answer withholds partitions from unknown member '" + memberId + "'");
            }
            for (TopicPartition tp : member.getValue()) {
                if (!ownersOf.getOrDefault(tp, Set.of()).contains(memberId)) {
                    throw AnswerReader.invalid("the answer withholds " + tp + " from '" + memberId
                            + "', which does not own it");
                }
                String assigned = owner.putIfAbsent(tp, memberId);
                if (assigned != null) {
                    throw AnswerReader.invalid("the answer both gives " + tp + " to '" + assigned
                            + "' and withholds it from '" + memberId + "'");
                }
            }
        }
        for (Map.Entry<String, List<TopicPartition>> member : assignment.entrySet()) {
            String memberId = member.getKey();
            for (TopicPartition tp : member.getValue()) {
                Set<String> owners = ownersOf.getOrDefault(tp, Set.of());
                if (!owners.isEmpty() && !owners.contains(memberId)) {
                    throw AnswerReader.invalid("the answer moves " + tp + " from " + owners + " to '" + memberId
                            + "' in one cooperative rebalance; it must be revoked first");
                }
            }
        }
    }

    private static int compare(TopicPartition a, TopicPartition b) {
        int byTopic = a.topic().compareTo(b.topic());
        return byTopic != 0 ? byTopic : Integer.compare(a.partition(), b.partition());
    }
}
