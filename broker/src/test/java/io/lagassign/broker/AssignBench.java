package io.lagassign.broker;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;

/**
 * The plugin's {@code assign()} time, beside Kafka's own UniformAssignor in the same JVM, on the
 * broker's own classpath; JSON lines on stdout. Run by {@code bench/broker_plugin.py}.
 *
 * <p>Groups: members x partitions in ten topics of equal size, every member subscribed to
 * every topic and owning a round-robin share (the previous assignment). The healthy answerer is
 * an HTTP server in the same JVM that reads the request and returns a precomputed valid answer,
 * so "healthy" is the plugin's own cost (encoding, the HTTP exchange, reading and checking the
 * answer), not the sidecar's computation.
 */
public final class AssignBench {
    /** Ten topics a group, whatever its size. */
    private static final int TOPICS = 10;

    private AssignBench() {
    }

    private record Group(GroupSpec spec, SubscribedTopicDescriber describer, byte[] answer) {
    }

    private static volatile byte[] answer = new byte[0];
    private static volatile long answerDelayMs;

    public static void main(String[] args) throws IOException {
        // members x partitions, and runs of each: the sizes of the issue first (args: M P RUNS ...).
        int[][] sizes = {{50, 10_000}, {200, 100_000}, {1_000, 10_000}, {2_000, 100_000}};
        int[] runs = {100, 20, 60, 20};
        if (args.length >= 3) {
            sizes = new int[args.length / 3][];
            runs = new int[args.length / 3];
            for (int i = 0; i + 2 < args.length; i += 3) {
                sizes[i / 3] = new int[] {Integer.parseInt(args[i]), Integer.parseInt(args[i + 1])};
                runs[i / 3] = Integer.parseInt(args[i + 2]);
            }
        }
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", exchange -> {
            try (exchange) {
                exchange.getRequestBody().readAllBytes();
                if (answerDelayMs > 0) {
                    try {
                        Thread.sleep(answerDelayMs);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                byte[] body = answer;
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                } catch (IOException e) {
                    // The plugin's deadline passed and it closed the connection.
                }
            }
        });
        server.start();
        String healthyUrl = "http://127.0.0.1:" + server.getAddress().getPort();
        String downUrl;
        try (ServerSocket socket = new ServerSocket(0)) {
            downUrl = "http://127.0.0.1:" + socket.getLocalPort();
        }
        try {
            for (int i = 0; i < sizes.length; i++) {
                int members = sizes[i][0];
                int partitions = sizes[i][1];
                int n = runs[i];
                Group group = group(members, partitions);
                answer = group.answer();
                String shape = String.format(Locale.ROOT, "\"members\": %d, \"partitions\": %d", members, partitions);

                UniformAssignor uniform = new UniformAssignor();
                double[] uniformMs = time(n, () -> uniform.assign(group.spec(), group.describer()));
                print("uniform", shape, uniformMs, LagassignConfig.DEFAULT_TIMEOUT_MS, null);

                answerDelayMs = 0;
                LagassignAssignor generous = assignor(healthyUrl, LagassignConfig.MAX_TIMEOUT_MS, 1000);
                double[] healthy = time(n, () -> generous.assign(group.spec(), group.describer()));
                print("healthy", shape, healthy, LagassignConfig.MAX_TIMEOUT_MS, generous);

                LagassignAssignor standard = assignor(healthyUrl, LagassignConfig.DEFAULT_TIMEOUT_MS, 1000);
                double[] healthyDefault = time(n, () -> standard.assign(group.spec(), group.describer()));
                print("healthy_default_deadline", shape, healthyDefault, LagassignConfig.DEFAULT_TIMEOUT_MS, standard);

                LagassignAssignor down = assignor(downUrl, LagassignConfig.DEFAULT_TIMEOUT_MS, 1000);
                double[] downMs = time(n, () -> down.assign(group.spec(), group.describer()));
                print("fallback_down", shape, downMs, LagassignConfig.DEFAULT_TIMEOUT_MS, down);

                answerDelayMs = 2_000;
                LagassignAssignor slow = assignor(healthyUrl, LagassignConfig.DEFAULT_TIMEOUT_MS, 1000);
                double[] slowMs = time(Math.min(n, 30), () -> slow.assign(group.spec(), group.describer()));
                print("fallback_slow", shape, slowMs, LagassignConfig.DEFAULT_TIMEOUT_MS, slow);

                LagassignAssignor broken = assignor(healthyUrl, LagassignConfig.DEFAULT_TIMEOUT_MS, 1);
                broken.assign(group.spec(), group.describer());
                double[] openMs = time(n, () -> broken.assign(group.spec(), group.describer()));
                print("fallback_breaker_open", shape, openMs, LagassignConfig.DEFAULT_TIMEOUT_MS, broken);
                answerDelayMs = 0;
            }
        } finally {
            server.stop(0);
            System.exit(0);
        }
    }

    private static LagassignAssignor assignor(String url, int timeoutMs, int breakerFailures) {
        Map<String, Object> props = new HashMap<>();
        props.put(LagassignConfig.URL_CONFIG, url);
        props.put(LagassignConfig.TIMEOUT_MS_CONFIG, String.valueOf(timeoutMs));
        props.put(LagassignConfig.BREAKER_FAILURES_CONFIG, String.valueOf(breakerFailures));
        props.put(LagassignConfig.BREAKER_COOLOFF_MS_CONFIG, "3600000");
        LagassignAssignor assignor = new LagassignAssignor(System::nanoTime);
        assignor.configure(props);
        assignor.awaitWarmUp();
        return assignor;
    }

    /** Milliseconds of each of {@code n} calls after {@code max(3, n / 5)} warm-up calls. */
    private static double[] time(int n, Supplier<Object> call) {
        for (int i = 0; i < Math.max(3, n / 5); i++) {
            call.get();
        }
        double[] ms = new double[n];
        for (int i = 0; i < n; i++) {
            long started = System.nanoTime();
            call.get();
            ms[i] = (System.nanoTime() - started) / 1e6;
        }
        Arrays.sort(ms);
        return ms;
    }

    private static double percentile(double[] sorted, double q) {
        int index = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    private static void print(String scenario, String shape, double[] ms, int deadlineMs, LagassignAssignor assignor) {
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                "{\"bench\": \"broker_plugin\", \"case\": \"%s\", %s, \"runs\": %d, \"p50_ms\": %.3f, "
                        + "\"p99_ms\": %.3f, \"max_ms\": %.3f, \"deadline_ms\": %d",
                scenario, shape, ms.length, percentile(ms, 0.5), percentile(ms, 0.99), ms[ms.length - 1], deadlineMs));
        if (assignor != null) {
            line.append(String.format(Locale.ROOT, ", \"answered\": %d, \"fallbacks\": \"%s\"", assignor.answers(),
                    assignor.fallbackCounts()));
        }
        System.out.println(line.append('}'));
        System.out.flush();
    }

    private static Group group(int members, int partitions) {
        int topics = TOPICS;
        int perTopic = partitions / TOPICS;
        List<Uuid> topicIds = new ArrayList<>();
        Map<Uuid, Integer> counts = new HashMap<>();
        for (int t = 0; t < topics; t++) {
            Uuid id = Uuid.randomUuid();
            topicIds.add(id);
            counts.put(id, perTopic);
        }
        List<String> memberIds = new ArrayList<>();
        for (int m = 0; m < members; m++) {
            memberIds.add(String.format(Locale.ROOT, "member-%05d", m));
        }
        Map<String, Map<Uuid, Set<Integer>>> owned = new HashMap<>();
        Map<Uuid, Map<Integer, String>> inverted = new HashMap<>();
        int next = 0;
        for (Uuid topic : topicIds) {
            for (int p = 0; p < perTopic; p++) {
                String member = memberIds.get(next++ % members);
                owned.computeIfAbsent(member, k -> new HashMap<>()).computeIfAbsent(topic, k -> new HashSet<>()).add(p);
                inverted.computeIfAbsent(topic, k -> new HashMap<>()).put(p, member);
            }
        }
        Set<Uuid> subscribed = Set.copyOf(topicIds);
        Map<String, MemberSubscriptionAndAssignmentImpl> specs = new HashMap<>();
        for (String member : memberIds) {
            specs.put(member, new MemberSubscriptionAndAssignmentImpl(Optional.empty(), Optional.empty(), subscribed,
                    new Assignment(owned.getOrDefault(member, Map.of()))));
        }
        GroupSpec spec = new GroupSpecImpl(specs, SubscriptionType.HOMOGENEOUS, inverted);
        SubscribedTopicDescriber describer = Groups.describer(counts, Map.of());
        // A valid answer: the owned (round-robin) assignment, every member listed, in the packed
        // form the plugin asks for (topics in the request's order: by topic id text).
        List<String> order = topicIds.stream().map(Uuid::toString).sorted().toList();
        StringBuilder json = new StringBuilder("{\"topics\": [");
        for (int t = 0; t < order.size(); t++) {
            json.append(t == 0 ? "\"" : ",\"").append(order.get(t)).append('"');
        }
        json.append("], \"assignment\": {");
        for (int m = 0; m < members; m++) {
            String member = memberIds.get(m);
            List<int[]> pairs = new ArrayList<>();
            owned.getOrDefault(member, Map.of()).forEach((topic, partitionsOf) -> partitionsOf.forEach(p ->
                    pairs.add(new int[] {order.indexOf(topic.toString()), p})));
            pairs.sort((a, b) -> a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(a[1], b[1]));
            java.nio.ByteBuffer indices = java.nio.ByteBuffer.allocate(4 * pairs.size())
                    .order(java.nio.ByteOrder.LITTLE_ENDIAN);
            java.nio.ByteBuffer numbers = java.nio.ByteBuffer.allocate(4 * pairs.size())
                    .order(java.nio.ByteOrder.LITTLE_ENDIAN);
            for (int[] pair : pairs) {
                indices.putInt(pair[0]);
                numbers.putInt(pair[1]);
            }
            json.append(m == 0 ? "" : ",").append('"').append(member).append("\":{\"topic_indices\":\"")
                    .append(java.util.Base64.getEncoder().encodeToString(indices.array()))
                    .append("\",\"partitions\":\"")
                    .append(java.util.Base64.getEncoder().encodeToString(numbers.array())).append("\"}");
        }
        json.append("}, \"revoked\": {}}");
        return new Group(spec, describer, json.toString().getBytes(StandardCharsets.UTF_8));
    }
}
