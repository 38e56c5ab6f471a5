import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * One real Java consumer on the new consumer group protocol, for the broker plugin's tests:
 * {@code java -cp <its class>:<Kafka's classpath> JavaMember BOOTSTRAP GROUP TOPIC ASSIGNOR SECONDS [RACK]}
 * (RACK: its {@code client.rack}; the tests compile it once with {@code javac}).
 * Prints {@code {"member_id": "...", "partitions": [..]}} on stdout whenever its member id or
 * assignment changes; leaves the group and exits after SECONDS or when stdin closes.
 */
public final class JavaMember {
    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, args[1]);
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        props.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, args[3]);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        if (args.length > 5) {
            props.put(ConsumerConfig.CLIENT_RACK_CONFIG, args[5]);
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(Long.parseLong(args[4])).toNanos();
        Thread stdin = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // Wait for the test to close stdin.
                }
            } catch (java.io.IOException e) {
                // Closed.
            }
        });
        stdin.setDaemon(true);
        stdin.start();
        String last = "";
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of(args[2]));
            while (System.nanoTime() < deadline && stdin.isAlive()) {
                consumer.poll(Duration.ofMillis(100));
                Set<Integer> partitions = new TreeSet<>();
                for (TopicPartition tp : consumer.assignment()) {
                    partitions.add(tp.partition());
                }
                String line = "{\"member_id\": \"" + consumer.groupMetadata().memberId() + "\", \"partitions\": "
                        + partitions + "}";
                if (!line.equals(last)) {
                    System.out.println(line);
                    System.out.flush();
                    last = line;
                }
            }
        }
    }
}
