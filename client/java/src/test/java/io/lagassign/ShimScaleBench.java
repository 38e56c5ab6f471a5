package io.lagassign;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;

/**
 * The Java shim's own time at scale, in the JVM (bench/shim_scale.py runs it): building the
 * {@code POST /assign} request from Kafka's metadata and subscriptions ({@link GroupView#of} and
 * {@link GroupView#requestBody}), and reading and checking the answer ({@link AnswerReader#read}).
 * One JSON line on stdout.
 *
 * <pre>
 * java -cp CLASSPATH io.lagassign.ShimScaleBench MEMBERS TOPICS PARTITIONS_PER_TOPIC ANSWER_FILE RUNS
 * </pre>
 *
 * <p>The group: members {@code consumer-0000...}, every one subscribed to topics
 * {@code topic-000...}, nothing owned. ANSWER_FILE is the sidecar's answer to that group's
 * request (bench/shim_scale.py makes it with the service's own code), in the form that request
 * asked for ({@code packed}, as both shims ask); {@link AnswerReader} reads any of the three.
 */
public final class ShimScaleBench {
    private static final int WARMUP = 5;

    private ShimScaleBench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: MEMBERS TOPICS PARTITIONS_PER_TOPIC ANSWER_FILE RUNS");
            System.exit(2);
        }
        int members = Integer.parseInt(args[0]);
        int topics = Integer.parseInt(args[1]);
        int perTopic = Integer.parseInt(args[2]);
        byte[] answer = Files.readAllBytes(Path.of(args[3]));
        int runs = Integer.parseInt(args[4]);

        Map<String, Integer> counts = new HashMap<>();
        List<String> names = new ArrayList<>();
        for (int t = 0; t < topics; t++) {
            String topic = String.format(Locale.ROOT, "topic-%03d", t);
            names.add(topic);
            counts.put(topic, perTopic);
        }
        Cluster cluster = Groups.cluster(counts);
        ByteBuffer nothingOwned = UserDataJson.encode(SubscriptionUserData.NOTHING_KNOWN);
        Map<String, Subscription> subscriptions = new HashMap<>();
        for (int m = 0; m < members; m++) {
            // Each member's own copy of the topic list, as Kafka decodes each member's metadata.
            subscriptions.put(String.format(Locale.ROOT, "consumer-%04d", m),
                    Groups.subscription(new ArrayList<>(names), nothingOwned.duplicate(), null));
        }

        double[][] times = new double[6][runs];
        int[] sizes = new int[2];
        for (int i = -WARMUP; i < runs; i++) {
            // One run in its own call: nothing of a run is still reachable in the next one, as
            // nothing of a rebalance is in the next (the collector would copy it again and again).
            double[] run = run(cluster, subscriptions, answer, sizes);
            if (i >= 0) {
                for (int k = 0; k < run.length; k++) {
                    times[k][i] = run[k];
                }
            }
        }
        System.out.printf(Locale.ROOT,
                "{\"members\": %d, \"partitions\": %d, \"runs\": %d, \"request_bytes\": %d, \"answer_bytes\": %d,"
                        + " \"assigned\": %d, \"build_request_s_p50\": %.4f, \"build_request_s_max\": %.4f,"
                        + " \"build_request_cpu_s_p50\": %.4f, \"build_request_cpu_s_max\": %.4f,"
                        + " \"check_answer_s_p50\": %.4f, \"check_answer_s_max\": %.4f,"
                        + " \"check_answer_cpu_s_p50\": %.4f, \"check_answer_cpu_s_max\": %.4f,"
                        + " \"check_answer_gc_s_p50\": %.4f, \"check_answer_gc_s_max\": %.4f,"
                        + " \"leader_digest_s_p50\": %.4f, \"leader_digest_s_max\": %.4f, \"gc\": \"%s\"}%n",
                members, topics * perTopic, runs, sizes[0], answer.length, sizes[1],
                median(times[0]), max(times[0]), median(times[1]), max(times[1]),
                median(times[2]), max(times[2]), median(times[3]), max(times[3]),
                median(times[4]), max(times[4]), median(times[5]), max(times[5]), collectors());
    }

    /**
     * One run: wall and CPU seconds of building the request, of checking the answer, the
     * collectors' time (pauses, plus the concurrent collector's cycles) during the check, and the
     * wall seconds of the leader's digest of the checked assignment.
     * {@code sizes} gets the request's bytes and the partitions assigned.
     */
    private static double[] run(Cluster cluster, Map<String, Subscription> subscriptions, byte[] answer, int[] sizes)
            throws FallbackException {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long started = System.nanoTime();
        long startedCpu = threads.getCurrentThreadCpuTime();
        GroupView view = GroupView.of("bench-shim.scale", cluster, subscriptions);
        byte[] request = view.requestBody("balanced", null);
        long built = System.nanoTime();
        long builtCpu = threads.getCurrentThreadCpuTime();
        long builtGc = collectionMillis();
        AnswerReader.Answer read = AnswerReader.read(answer, view);
        long checked = System.nanoTime();
        long checkedCpu = threads.getCurrentThreadCpuTime();
        long checkedGc = collectionMillis();
        AssignmentDigest.of(read.assignment());
        long digested = System.nanoTime();
        sizes[0] = request.length;
        sizes[1] = read.assignment().values().stream().mapToInt(List::size).sum();
        return new double[] {(built - started) / 1e9, (builtCpu - startedCpu) / 1e9, (checked - built) / 1e9,
            (checkedCpu - builtCpu) / 1e9, (checkedGc - builtGc) / 1e3, (digested - checked) / 1e9};
    }

    private static long collectionMillis() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream()
                .mapToLong(GarbageCollectorMXBean::getCollectionTime).filter(t -> t > 0).sum();
    }

    private static String collectors() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName).collect(Collectors.joining(", "));
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static double max(double[] values) {
        return Arrays.stream(values).max().orElse(Double.NaN);
    }
}
