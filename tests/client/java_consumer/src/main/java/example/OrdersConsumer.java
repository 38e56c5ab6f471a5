package example;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.PackageVersion;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.NoOffsetForPartitionException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A consumer configured as the shim's README says, with the application's own Jackson.
 *
 * <pre>
 * OrdersConsumer BOOTSTRAP GROUP TOPIC[,TOPIC...] SIDECAR_URL CLIENT_ID AUTO_OFFSET_RESET [STRATEGIES]
 * </pre>
 *
 * <p>STRATEGIES is {@code partition.assignment.strategy}, {@code io.lagassign.LagAssignor} unless given.
 *
 * <p>After every assignment it prints one JSON line (written with its own Jackson): the
 * partitions, its Jackson version, and the attributes of its lagassign MBean read back through
 * the platform MBean server. It leaves the group when stdin says {@code stop} or closes, and
 * prints whether the MBean is still registered after {@code close()}.
 */
public final class OrdersConsumer {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();

    private OrdersConsumer() {
    }

    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, args[1]);
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                args.length > 6 ? args[6] : "io.lagassign.LagAssignor");
        props.put("lagassign.url", args[3]);
        props.put("lagassign.timeout.ms", "5000");
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, args[4]);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, args[5]);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "30000");
        props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        ObjectName mbean = new ObjectName("io.lagassign:type=LagAssignor,client-id=" + args[4]);

        AtomicBoolean stopping = new AtomicBoolean();
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props);
        Thread stdin = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null && !"stop".equals(line.strip())) {
                    // only "stop" means anything
                }
            } catch (IOException e) {
                // stdin gone: stop as well
            }
            stopping.set(true);
            consumer.wakeup();
        }, "stdin");
        stdin.setDaemon(true);
        stdin.start();
        consumer.subscribe(Arrays.asList(args[2].split(",")), new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                print(JSON.createObjectNode().put("event", "revoked"));
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                ObjectNode line = JSON.createObjectNode().put("event", "assigned");
                ArrayNode list = line.putArray("partitions");
                List<TopicPartition> sorted = new ArrayList<>(partitions);
                sorted.sort((a, b) -> a.toString().compareTo(b.toString()));
                sorted.forEach(tp -> list.addArray().add(tp.topic()).add(tp.partition()));
                line.put("jackson", PackageVersion.VERSION.toString());
                line.set("mbean", attributes(mbean));
                print(line);
            }
        });
        try {
            while (!stopping.get()) {
                try {
                    consumer.poll(Duration.ofMillis(200));
                } catch (NoOffsetForPartitionException e) {
                    // auto.offset.reset=none and nothing committed: the test only needs the assignment
                    Thread.sleep(200);
                } catch (WakeupException e) {
                    break;
                }
            }
        } finally {
            consumer.close();
        }
        print(JSON.createObjectNode().put("event", "closed").put("mbean_registered", JMX.isRegistered(mbean)));
    }

    private static ObjectNode attributes(ObjectName name) {
        ObjectNode out = JSON.createObjectNode();
        try {
            for (MBeanAttributeInfo info : JMX.getMBeanInfo(name).getAttributes()) {
                Object value = JMX.getAttribute(name, info.getName());
                out.putPOJO(info.getName(), value);
            }
        } catch (JMException e) {
            out.put("error", e.toString());
        }
        return out;
    }

    private static synchronized void print(ObjectNode line) {
        System.out.println(line.toString());
        System.out.flush();
    }
}
