package io.lagassign.broker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;

/**
 * Kafka's own UniformAssignor (or, with a fourth argument {@code range}, RangeAssignor) on a homogeneous group, as the coordinator runs it: a group of
 * MEMBERS formed from scratch, then one member joining it (the first assignment as the previous
 * one). Prints one JSON object, {@code {"before": {member: {topic: [partition, …]}}, "after": …}},
 * topics named {@code t0 … t(T-1)}, members {@code m-00000 …} (the joiner is the last).
 *
 * <pre>java -cp … io.lagassign.broker.UniformLayout MEMBERS TOPICS PARTITIONS_PER_TOPIC [range]</pre>
 */
public final class UniformLayout {
    private UniformLayout() {
    }

    public static void main(String[] args) {
        int members = Integer.parseInt(args[0]);
        int topics = Integer.parseInt(args[1]);
        int perTopic = Integer.parseInt(args[2]);
        ConsumerGroupPartitionAssignor assignor = args.length > 3 && "range".equals(args[3])
                ? new RangeAssignor() : new UniformAssignor();
        Map<Uuid, String> names = new HashMap<>();
        Map<Uuid, Integer> counts = new HashMap<>();
        for (int t = 0; t < topics; t++) {
            Uuid id = Uuid.randomUuid();
            names.put(id, "t" + t);
            counts.put(id, perTopic);
        }
        SubscribedTopicDescriber describer = Groups.describer(counts, Map.of());
        List<String> ids = new ArrayList<>();
        for (int m = 0; m <= members; m++) {
            ids.add(String.format(Locale.ROOT, "m-%05d", m));
        }
        Map<String, Map<Uuid, Set<Integer>>> before = run(assignor, ids.subList(0, members), Map.of(), counts.keySet(), describer);
        Map<String, Map<Uuid, Set<Integer>>> after = run(assignor, ids, before, counts.keySet(), describer);
        System.out.println("{\"before\": " + json(before, names) + ", \"after\": " + json(after, names) + "}");
    }

    private static Map<String, Map<Uuid, Set<Integer>>> run(ConsumerGroupPartitionAssignor assignor, List<String> ids, Map<String, Map<Uuid, Set<Integer>>> previous,
            Set<Uuid> topics, SubscribedTopicDescriber describer) {
        Map<String, MemberSubscriptionAndAssignmentImpl> specs = new HashMap<>();
        Map<Uuid, Map<Integer, String>> inverted = new HashMap<>();
        for (String id : ids) {
            Map<Uuid, Set<Integer>> owned = previous.getOrDefault(id, Map.of());
            owned.forEach((topic, partitions) -> partitions.forEach(p ->
                    inverted.computeIfAbsent(topic, k -> new HashMap<>()).put(p, id)));
            specs.put(id, new MemberSubscriptionAndAssignmentImpl(Optional.empty(), Optional.empty(), topics,
                    new Assignment(owned)));
        }
        GroupSpec spec = new GroupSpecImpl(specs, SubscriptionType.HOMOGENEOUS, inverted);
        GroupAssignment assignment = assignor.assign(spec, describer);
        Map<String, Map<Uuid, Set<Integer>>> out = new TreeMap<>();
        assignment.members().forEach((id, member) -> out.put(id, member.partitions()));
        return out;
    }

    private static String json(Map<String, Map<Uuid, Set<Integer>>> assignment, Map<Uuid, String> names) {
        StringBuilder out = new StringBuilder("{");
        boolean firstMember = true;
        for (Map.Entry<String, Map<Uuid, Set<Integer>>> member : assignment.entrySet()) {
            out.append(firstMember ? "" : ", ").append('"').append(member.getKey()).append("\": {");
            firstMember = false;
            boolean firstTopic = true;
            for (Map.Entry<Uuid, Set<Integer>> topic : member.getValue().entrySet()) {
                out.append(firstTopic ? "" : ", ").append('"').append(names.get(topic.getKey())).append("\": ")
                        .append(new TreeSet<>(topic.getValue()).toString());
                firstTopic = false;
            }
            out.append('}');
        }
        return out.append('}').toString();
    }
}
