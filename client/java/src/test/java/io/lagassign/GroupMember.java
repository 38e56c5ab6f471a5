package io.lagassign;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * One real Kafka Java consumer with the shim, driven by the Python integration tests.
 *
 * <pre>
 * GroupMember BOOTSTRAP GROUP TOPIC[,TOPIC...] SIDECAR_URL TIMEOUT_MS CLIENT_ID COMMIT [ADVISE_MS]
 * </pre>
 *
 * <p>With the system property {@code lagassign.member.cooperative=true} the consumer uses
 * {@link CooperativeLagAssignor} (the cooperative protocol) instead of {@link LagAssignor}.
 *
 * <p>With ADVISE_MS, the poll loop calls a {@link RebalanceAdvisor} (checking the advice at most
 * every ADVISE_MS) as the documented loop does: last, after the batch is processed and committed,
 * right before the next poll; it prints {@code {"event": "enforced", "generation"}} when it forces
 * a rebalance.
 *
 * <p>System properties {@code lagassign.member.maxPollRecords} ({@code max.poll.records}) and
 * {@code lagassign.member.workMs} (the application's work on each non-empty batch, in ms) make a
 * slow consumer whose backlog lasts. A commit Kafka refuses prints {@code {"event":
 * "commit_failed", "error"}}; with ADVISE_MS the loop commits through
 * {@link RebalanceAdvisor#commitSync}, and a commit it leaves to the next one prints
 * {@code {"event": "commit_deferred"}}. With COMMIT, the rebalance listener commits the positions
 * of the partitions it revokes.
 *
 * <p>Prints JSON lines on stdout, each with {@code "ts"} (wall clock, ms): {@code {"event":
 * "assigned", "member_id", "partitions" (the whole assignment), "added", "note", "decision",
 * "fallbacks"}} after every rebalance (and {@code {"event": "revoked", "partitions"}} when the
 * listener revokes some), {@code {"event": "consumed",
 * "records": [[topic, partition, offset], ...]}} after every poll that returned records (their
 * offsets committed first when COMMIT is {@code true}), and {@code {"event": "closed"}} at the end. It leaves the group
 * and exits when stdin says {@code stop} or closes.
 */
public final class GroupMember {
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    private GroupMember() {
    }

    public static void main(String[] args) {
        if (args.length != 7 && args.length != 8) {
            System.err.println("usage: GroupMember BOOTSTRAP GROUP TOPICS SIDECAR_URL TIMEOUT_MS CLIENT_ID COMMIT "
                    + "[ADVISE_MS]");
            System.exit(2);
        }
        boolean commit = Boolean.parseBoolean(args[6]);
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, args[1]);
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, args[5]);
        props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                Boolean.getBoolean("lagassign.member.cooperative")
                        ? RecordingLagAssignor.Cooperative.class.getName() : RecordingLagAssignor.class.getName());
        props.put(LagAssignor.URL_CONFIG, args[3]);
        props.put(LagAssignor.TIMEOUT_MS_CONFIG, args[4]);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "30000");
        props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        String maxPollRecords = System.getProperty("lagassign.member.maxPollRecords");
        if (maxPollRecords != null) {
            props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords);
        }
        long workMs = Long.getLong("lagassign.member.workMs", 0L);

        RebalanceAdvisor advisor = args.length == 8
                ? new RebalanceAdvisor(java.net.URI.create(args[3]), args[1], null,
                        Duration.ofMillis(Long.parseLong(args[7])))
                : null;
        AtomicBoolean stopping = new AtomicBoolean();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            StopSignal.watch(() -> {
                stopping.set(true);
                consumer.wakeup();
            });

            consumer.subscribe(Arrays.asList(args[2].split(",")), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    if (commit && !partitions.isEmpty()) {
                        // What the member gives up and has not committed yet, committed before
                        // it goes (the usual listener). A commit-after-batch loop has committed
                        // every batch it read, so there is nothing left unless a commit was
                        // left to the next one; committing nothing asks the coordinator nothing.
                        Map<TopicPartition, OffsetAndMetadata> committed =
                                consumer.committed(new HashSet<>(partitions));
                        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                        for (TopicPartition tp : partitions) {
                            long position = consumer.position(tp);
                            OffsetAndMetadata last = committed.get(tp);
                            if (last == null || last.offset() < position) {
                                offsets.put(tp, new OffsetAndMetadata(position));
                            }
                        }
                        if (!offsets.isEmpty()) {
                            commitReporting(consumer, offsets);
                        }
                    }
                    ObjectNode line = UserDataJson.MAPPER.createObjectNode();
                    line.put("event", "revoked");
                    line.put("ts", System.currentTimeMillis());
                    partitionList(line.putArray("partitions"), partitions);
                    OUT.println(line);
                }

                /**
                 * Lost, not revoked: the member is out of the generation (its close during a
                 * rebalance, or fenced), so a commit would be refused. Kafka's default would call
                 * {@code onPartitionsRevoked} and commit; the usual listener commits nothing here.
                 */
                @Override
                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                    ObjectNode line = UserDataJson.MAPPER.createObjectNode();
                    line.put("event", "lost");
                    line.put("ts", System.currentTimeMillis());
                    partitionList(line.putArray("partitions"), partitions);
                    OUT.println(line);
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    report(consumer, partitions);
                }
            });
            while (!stopping.get()) {
                ConsumerRecords<byte[], byte[]> records;
                try {
                    records = consumer.poll(Duration.ofMillis(200));
                } catch (WakeupException e) {
                    break;
                }
                if (!records.isEmpty()) {
                    ObjectNode line = consumedLine(records);
                    if (workMs > 0) {
                        work(workMs);
                    }
                    if (commit && advisor != null) {
                        if (!advisor.commitSync(consumer)) {
                            OUT.println("{\"event\":\"commit_deferred\",\"ts\":" + System.currentTimeMillis() + "}");
                        }
                    } else if (commit) {
                        commitReporting(consumer);
                    }
                    OUT.println(line);
                }
                // Last in the loop, after the batch's commit: the rebalance it may ask for
                // runs in the next poll.
                if (advisor != null && advisor.maybeRebalance(consumer)) {
                    OUT.println("{\"event\":\"enforced\",\"generation\":" + consumer.groupMetadata().generationId()
                            + ",\"ts\":" + System.currentTimeMillis() + "}");
                }
            }
        }
        OUT.println("{\"event\":\"closed\"}");
    }

    /** A commit refused during a rebalance is reported (the records come again). */
    private static void commitReporting(KafkaConsumer<byte[], byte[]> consumer) {
        commitReporting(consumer, null);
    }

    private static void commitReporting(KafkaConsumer<byte[], byte[]> consumer,
            Map<TopicPartition, OffsetAndMetadata> offsets) {
        try {
            if (offsets == null) {
                consumer.commitSync();
            } else {
                consumer.commitSync(offsets);
            }
        } catch (CommitFailedException | RebalanceInProgressException e) {
            ObjectNode line = UserDataJson.MAPPER.createObjectNode();
            line.put("event", "commit_failed");
            line.put("ts", System.currentTimeMillis());
            line.put("error", e.toString());
            OUT.println(line);
        }
    }

    /** The application's work on one batch (a slow consumer). */
    private static void work(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A {@code consumed} line: each record's topic, partition and offset. */
    static ObjectNode consumedLine(Iterable<ConsumerRecord<byte[], byte[]>> records) {
        ObjectNode line = UserDataJson.MAPPER.createObjectNode();
        line.put("event", "consumed");
        line.put("ts", System.currentTimeMillis());
        ArrayNode list = line.putArray("records");
        for (ConsumerRecord<byte[], byte[]> record : records) {
            list.addArray().add(record.topic()).add(record.partition()).add(record.offset());
        }
        return line;
    }

    /** An {@code assigned} line's start: the member, its generation, its partitions, the assignor's note. */
    static ObjectNode assignedLine(Consumer<?, ?> consumer, LagAssignor assignor) {
        ObjectNode line = UserDataJson.MAPPER.createObjectNode();
        line.put("event", "assigned");
        line.put("ts", System.currentTimeMillis());
        line.put("member_id", consumer.groupMetadata().memberId());
        line.put("generation", consumer.groupMetadata().generationId());
        partitionList(line.putArray("partitions"), consumer.assignment());
        assignor.assignedBy().ifPresentOrElse(note -> {
            ObjectNode noted = line.putObject("note");
            noted.put("by", note.by());
            noted.put("strategy", note.strategy());
            noted.put("reason", note.reason());
        }, () -> line.putNull("note"));
        return line;
    }

    private static void partitionList(ArrayNode list, Collection<TopicPartition> partitions) {
        List<TopicPartition> sorted = new ArrayList<>(partitions);
        sorted.sort((a, b) -> a.topic().equals(b.topic())
                ? Integer.compare(a.partition(), b.partition()) : a.topic().compareTo(b.topic()));
        sorted.forEach(tp -> list.addArray().add(tp.topic()).add(tp.partition()));
    }

    private static void report(KafkaConsumer<byte[], byte[]> consumer, Collection<TopicPartition> partitions) {
        LagAssignor assignor = RecordingLagAssignor.latest();
        ObjectNode line = assignedLine(consumer, assignor);
        partitionList(line.putArray("added"), partitions);
        assignor.lastDecision().ifPresentOrElse(decision -> {
            ObjectNode decided = line.putObject("decision");
            decided.put("by", decision.by());
            decided.put("reason", decision.reason().map(FallbackReason::label).orElse(null));
            decided.put("seconds", decision.elapsed().toNanos() / 1e9);
        }, () -> line.putNull("decision"));
        ObjectNode fallbacks = line.putObject("fallbacks");
        for (Map.Entry<String, Long> entry : assignor.fallbackCounts().entrySet()) {
            fallbacks.put(entry.getKey(), entry.getValue());
        }
        line.put("answers", assignor.answers());
        OUT.println(line);
    }
}
