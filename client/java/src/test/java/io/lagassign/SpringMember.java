package io.lagassign;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ConsumerAwareRebalanceListener;
import org.springframework.kafka.listener.ContainerProperties;

/**
 * The Spring Kafka recipe of {@code client/java/README.md} as a real consumer, driven by the
 * Python integration tests: a {@code DefaultKafkaConsumerFactory} with the shim's properties, a
 * {@code ConcurrentMessageListenerContainer} with a batch listener (Spring commits after each
 * batch, {@code AckMode.BATCH}), and {@link LagAssignorMetrics} bound to a Micrometer registry.
 *
 * <pre>
 * SpringMember BOOTSTRAP GROUP TOPIC[,TOPIC...] SIDECAR_URL TIMEOUT_MS CLIENT_ID
 * </pre>
 *
 * <p>Prints the same JSON lines as {@link GroupMember} ({@code assigned}, {@code consumed},
 * {@code closed}); {@code assigned} also has {@code "meter_decisions"}: the leader's decisions
 * as the Micrometer registry counts them. It stops when stdin says {@code stop} or closes.
 */
public final class SpringMember {
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    private SpringMember() {
    }

    public static void main(String[] args) {
        if (args.length != 6) {
            System.err.println("usage: SpringMember BOOTSTRAP GROUP TOPICS SIDECAR_URL TIMEOUT_MS CLIENT_ID");
            System.exit(2);
        }
        // The recipe: the shim's settings beside the consumer's own.
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, args[1]);
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, RecordingLagAssignor.class.getName());
        props.put(LagAssignor.URL_CONFIG, args[3]);
        props.put(LagAssignor.TIMEOUT_MS_CONFIG, args[4]);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "30000");
        props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        DefaultKafkaConsumerFactory<byte[], byte[]> factory = new DefaultKafkaConsumerFactory<>(props);

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new LagAssignorMetrics().bindTo(registry);

        ContainerProperties container = new ContainerProperties(args[2].split(","));
        container.setClientId(args[5]);
        container.setAckMode(ContainerProperties.AckMode.BATCH);
        container.setPollTimeout(200);
        container.setConsumerRebalanceListener(new ConsumerAwareRebalanceListener() {
            @Override
            public void onPartitionsAssigned(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
                report(consumer, partitions, registry);
            }
        });
        container.setMessageListener((BatchMessageListener<byte[], byte[]>) records -> {
            OUT.println(GroupMember.consumedLine(records));
        });
        ConcurrentMessageListenerContainer<byte[], byte[]> listener =
                new ConcurrentMessageListenerContainer<>(factory, container);
        listener.setConcurrency(1);
        listener.start();
        try {
            StopSignal.await();
        } finally {
            listener.stop();
        }
        OUT.println("{\"event\":\"closed\"}");
    }

    private static void report(Consumer<?, ?> consumer, Collection<TopicPartition> partitions,
            SimpleMeterRegistry registry) {
        LagAssignor assignor = RecordingLagAssignor.latest();
        ObjectNode line = GroupMember.assignedLine(consumer, assignor);
        ObjectNode fallbacks = line.putObject("fallbacks");
        assignor.fallbackCounts().forEach(fallbacks::put);
        double decisions = registry.find(LagAssignorMetrics.DECISIONS).functionCounters().stream()
                .mapToDouble(counter -> counter.count()).sum();
        line.put("meter_decisions", decisions);
        line.put("answers", assignor.answers());
        OUT.println(line);
    }
}
