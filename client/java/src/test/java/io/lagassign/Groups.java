package io.lagassign;

import java.net.URI;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/** Builders of Kafka's own metadata and subscription values for the tests. */
final class Groups {
    private static final Node BROKER = new Node(1, "127.0.0.1", 9092);

    private Groups() {
    }

    /** Kafka's {@link Cluster} with the given topic to partition count. */
    static Cluster cluster(Map<String, Integer> counts) {
        List<PartitionInfo> partitions = new ArrayList<>();
        counts.forEach((topic, count) -> {
            for (int p = 0; p < count; p++) {
                partitions.add(new PartitionInfo(topic, p, BROKER, new Node[] {BROKER}, new Node[] {BROKER}));
            }
        });
        return new Cluster("test", List.of(BROKER), partitions, java.util.Set.of(), java.util.Set.of());
    }

    static Subscription subscription(List<String> topics, ByteBuffer userData, String instanceId) {
        Subscription subscription = new Subscription(topics, userData, List.of(), -1, Optional.empty());
        subscription.setGroupInstanceId(Optional.ofNullable(instanceId));
        return subscription;
    }

    /** Member id to sorted "topic-partition" names, the shape tests compare. */
    static Map<String, List<String>> partitionsOf(GroupAssignment assignment) {
        Map<String, List<String>> out = new TreeMap<>();
        assignment.groupAssignment().forEach((memberId, given) -> {
            List<String> names = new ArrayList<>();
            for (TopicPartition tp : given.partitions()) {
                names.add(tp.toString());
            }
            names.sort(null);
            out.put(memberId, names);
        });
        return out;
    }

    /** A shim configured as consumer {@code clientId} asking {@code url}, within a second. */
    static LagAssignor configured(URI url, String clientId) {
        Map<String, Object> configs = consumerConfigs(url.toString());
        configs.put("client.id", clientId);
        configs.put(LagAssignor.TIMEOUT_MS_CONFIG, 1000);
        LagAssignor assignor = new LagAssignor();
        assignor.configure(configs);
        return assignor;
    }

    /** Members c-1 and c-2, both subscribed to t0 alone. */
    static GroupSubscription twoMembersOnT0() {
        Map<String, Subscription> members = new TreeMap<>();
        members.put("c-1", subscription(List.of("t0"), null, null));
        members.put("c-2", subscription(List.of("t0"), null, null));
        return new GroupSubscription(members);
    }

    static Map<String, Object> consumerConfigs(String url) {
        Map<String, Object> configs = new HashMap<>();
        configs.put("group.id", "orders");
        configs.put(LagAssignor.URL_CONFIG, url);
        return configs;
    }
}
