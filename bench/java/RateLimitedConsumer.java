import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Members of one consumer group, each in its own thread, each processing at most
 * {@code rate} records a second (a fixed cost per record) and committing after every
 * batch. One JSON event per line on stdout; stops when stdin says "stop" or closes.
 *
 * <pre>
 * java -cp $(cat deploy/local-kafka/target/classpath.txt) bench/java/RateLimitedConsumer.java \
 *     BOOTSTRAP GROUP TOPIC,TOPIC MEMBERS RATE ASSIGNOR_CLASS CLIENT_PREFIX RESET
 * </pre>
 *
 * <p>With a ninth argument {@code held} the members join only once stdin says "go".
 *
 * <p>ASSIGNOR_CLASS is a classic client-side assignor's class, or {@code consumer:NAME} for
 * the consumer group protocol with the broker's assignor NAME ({@code uniform}, {@code lagassign}).
 */
public final class RateLimitedConsumer {
    private static final Object OUT = new Object();
    private static final int MAX_POLL_RECORDS = 100;
    /** ASSIGNOR_CLASS "consumer:NAME": the consumer group protocol with the broker's assignor NAME. */
    private static final String CONSUMER_PROTOCOL = "consumer:";

    private RateLimitedConsumer() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 8 && !(args.length == 9 && args[8].equals("held"))) {
            System.err.println(
                    "usage: BOOTSTRAP GROUP TOPICS MEMBERS RATE ASSIGNOR_CLASS CLIENT_PREFIX RESET [held]");
            System.exit(2);
        }
        List<String> topics = Arrays.asList(args[2].split(","));
        int members = Integer.parseInt(args[3]);
        double rate = Double.parseDouble(args[4]);
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < members; i++) {
            String name = args[6] + i;
            Properties props = new Properties();
            props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
            props.put(ConsumerConfig.GROUP_ID_CONFIG, args[1]);
            props.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
            props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, args[7]);
            props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, MAX_POLL_RECORDS);
            if (args[5].startsWith(CONSUMER_PROTOCOL)) {
                // The new protocol (KIP-848): the broker's assignor, named by the group; the
                // session and heartbeat are the broker's settings.
                props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
                props.put(
                        ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG,
                        args[5].substring(CONSUMER_PROTOCOL.length()));
            } else {
                props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, args[5]);
                props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
                props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);
            }
            props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
            props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
            Thread thread = new Thread(() -> member(name, props, topics, rate, running), name);
            threads.add(thread);
        }
        // "held": the JVM is up (compiled, started) but its members join only on "go".
        boolean held = args.length == 9;
        if (!held) {
            threads.forEach(Thread::start);
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        do {
            line = in.readLine();
            if (held && line != null && line.trim().equals("go")) {
                threads.forEach(Thread::start);
                held = false;
            }
        } while (line != null && !line.trim().equals("stop"));
        running.set(false);
        for (Thread thread : threads) {
            thread.join(30_000);
        }
        emit("{\"e\":\"exit\",\"t\":" + now() + "}");
    }

    private static void member(
            String name, Properties props, List<String> topics, double rate, AtomicBoolean running) {
        long records = 0;
        long failedCommits = 0;
        boolean first = true;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            int[] held = {0};
            consumer.subscribe(topics, new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    held[0] -= partitions.size();
                    event(name, "revoked", partitions.size(), held[0]);
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    held[0] += partitions.size();
                    event(name, "assigned", partitions.size(), held[0]);
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                    held[0] -= partitions.size();
                    event(name, "revoked", partitions.size(), held[0]);
                }
            });
            event(name, "joining", 0, 0);
            double due = seconds();
            while (running.get()) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(200));
                int n = batch.count();
                if (n == 0) {
                    continue;
                }
                if (first) {
                    first = false;
                    event(name, "first", n, held[0]);
                }
                double start = seconds();
                due = Math.max(due, start) + n / rate;
                long sleepNanos = (long) ((due - start) * 1e9);
                if (sleepNanos > 0) {
                    Thread.sleep(sleepNanos / 1_000_000, (int) (sleepNanos % 1_000_000));
                }
                Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                for (TopicPartition tp : batch.partitions()) {
                    List<ConsumerRecord<byte[], byte[]>> rows = batch.records(tp);
                    offsets.put(tp, new OffsetAndMetadata(rows.get(rows.size() - 1).offset() + 1));
                }
                records += n;
                try {
                    consumer.commitSync(offsets);
                } catch (CommitFailedException | RebalanceInProgressException e) {
                    failedCommits += 1;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        emit("{\"e\":\"done\",\"m\":\"" + name + "\",\"t\":" + now() + ",\"records\":" + records
                + ",\"failed_commits\":" + failedCommits + "}");
    }

    private static void event(String name, String what, int n, int held) {
        emit("{\"e\":\"" + what + "\",\"m\":\"" + name + "\",\"t\":" + now() + ",\"n\":" + n
                + ",\"held\":" + held + "}");
    }

    private static double now() {
        return System.currentTimeMillis() / 1000.0;
    }

    private static double seconds() {
        return System.nanoTime() / 1e9;
    }

    private static void emit(String line) {
        synchronized (OUT) {
            System.out.println(line);
            System.out.flush();
        }
    }
}
