package io.lagassign;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A real HTTP server on 127.0.0.1 that answers {@code POST /assign} like a sidecar, well or in one
 * chosen wrong way. A valid answer is a per-topic round robin over the request's members.
 */
final class FakeSidecar implements AutoCloseable {

    enum Behaviour {
        ANSWER, SLOW, STATUS_500, MALFORMED_JSON, MISSING_PARTITION, PARTITION_TWICE,
        /** A valid answer made without any lag ({@code lag.source} none). */
        LAG_BLIND,
        /** A valid answer with two partitions of assumed lag. */
        LAG_PARTIAL,
        /** Another web server's multi-line HTML 404 page. */
        HTML_404
    }

    static final String HTML_PAGE = "<!DOCTYPE html>\n<html>\n<head>\n  <title>404 Not Found</title>\n</head>\n"
            + "<body>\n<h1>Not Found</h1>\n<p>The requested URL was not found on this server.</p>\n"
            + "<hr>\n<address>Apache/2.4 Server at 127.0.0.1</address>\n</body>\n</html>\n";

    private final HttpServer server;
    private final CountDownLatch release = new CountDownLatch(1);
    final List<JsonNode> requests = new CopyOnWriteArrayList<>();
    final List<String> authorizations = new CopyOnWriteArrayList<>();
    volatile Behaviour behaviour;

    FakeSidecar(Behaviour behaviour) throws IOException {
        this.behaviour = behaviour;
        server = LoopbackServer.start("/assign", this::handle, "fake-sidecar");
    }

    /** A URL where nothing listens: a sidecar that is stopped. */
    static URI stoppedUrl() throws IOException {
        try (FakeSidecar gone = new FakeSidecar(Behaviour.ANSWER)) {
            return gone.url();
        }
    }

    URI url() {
        return LoopbackServer.url(server);
    }

    @Override
    public void close() {
        release.countDown();
        server.stop(0);
    }

    private void handle(HttpExchange exchange) throws IOException {
        JsonNode request = UserDataJson.MAPPER.readTree(exchange.getRequestBody().readAllBytes());
        requests.add(request);
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        authorizations.add(authorization == null ? "" : authorization);
        ObjectNode answer = roundRobin(request);
        switch (behaviour) {
            case SLOW -> {
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                send(exchange, 200, packed(request, answer).toString());
            }
            case STATUS_500 -> send(exchange, 500, "Internal Server Error");
            case HTML_404 -> send(exchange, 404, HTML_PAGE, "text/html; charset=utf-8");
            case LAG_BLIND -> {
                ObjectNode lag = answer.putObject("lag");
                lag.put("source", "none");
                lag.put("complete", false);
                lag.put("unknown_partitions", 0);
                send(exchange, 200, packed(request, answer).toString());
            }
            case LAG_PARTIAL -> {
                ObjectNode lag = (ObjectNode) answer.get("lag");
                lag.put("complete", false);
                lag.put("unknown_partitions", 2);
                send(exchange, 200, packed(request, answer).toString());
            }
            case MALFORMED_JSON -> send(exchange, 200, "{\"assignment\": {\"c-1\": ");
            case MISSING_PARTITION -> {
                firstList(answer).remove(0);
                send(exchange, 200, packed(request, answer).toString());
            }
            case PARTITION_TWICE -> {
                ArrayNode first = firstList(answer);
                String topic = firstTopic(answer);
                for (Map.Entry<String, JsonNode> member : answer.get("assignment").properties()) {
                    ObjectNode topics = (ObjectNode) member.getValue();
                    if (topics.path(topic) != first) {
                        (topics.has(topic) ? (ArrayNode) topics.get(topic) : topics.putArray(topic)).add(first.get(0));
                        break;
                    }
                }
                send(exchange, 200, packed(request, answer).toString());
            }
            default -> send(exchange, 200, packed(request, answer).toString());
        }
    }

    private static ArrayNode firstList(ObjectNode answer) {
        for (Map.Entry<String, JsonNode> member : answer.get("assignment").properties()) {
            for (Map.Entry<String, JsonNode> topic : member.getValue().properties()) {
                if (!topic.getValue().isEmpty()) {
                    return (ArrayNode) topic.getValue();
                }
            }
        }
        throw new IllegalStateException("the answer assigns nothing");
    }

    private static String firstTopic(ObjectNode answer) {
        for (Map.Entry<String, JsonNode> member : answer.get("assignment").properties()) {
            for (Map.Entry<String, JsonNode> topic : member.getValue().properties()) {
                if (!topic.getValue().isEmpty()) {
                    return topic.getKey();
                }
            }
        }
        throw new IllegalStateException("the answer assigns nothing");
    }

    static ObjectNode roundRobin(JsonNode request) {
        Map<String, List<String>> subscribers = new TreeMap<>();
        List<String> memberIds = new ArrayList<>();
        for (JsonNode member : request.get("members")) {
            String memberId = member.get("member_id").textValue();
            memberIds.add(memberId);
            JsonNode topics = member.has("topics") ? member.get("topics")
                    : request.get("subscriptions").get(member.get("subscription").intValue());
            for (JsonNode topic : topics) {
                subscribers.computeIfAbsent(topic.textValue(), t -> new ArrayList<>()).add(memberId);
            }
        }
        memberIds.sort(null);
        subscribers.values().forEach(list -> list.sort(null));
        ObjectNode answer = UserDataJson.MAPPER.createObjectNode();
        answer.put("group_id", request.get("group_id").textValue());
        answer.put("strategy", request.path("strategy").isTextual() ? request.get("strategy").textValue() : "roundrobin");
        ObjectNode assignment = answer.putObject("assignment");
        memberIds.forEach(assignment::putObject);
        for (Map.Entry<String, JsonNode> topic : request.get("partitions").properties()) {
            List<String> members = subscribers.get(topic.getKey());
            for (int p = 0; p < topic.getValue().intValue(); p++) {
                ObjectNode topics = (ObjectNode) assignment.get(members.get(p % members.size()));
                (topics.has(topic.getKey()) ? (ArrayNode) topics.get(topic.getKey()) : topics.putArray(topic.getKey()))
                        .add(p);
            }
        }
        answer.putObject("revoked");
        ObjectNode lag = answer.putObject("lag");
        lag.put("source", "kafka");
        lag.put("complete", true);
        lag.put("unknown_partitions", 0);
        ObjectNode stats = answer.putObject("stats");
        stats.put("max_lag", 5600);
        stats.put("mean_lag", 4000.0);
        return answer;
    }

    private static void send(HttpExchange exchange, int status, String body) throws IOException {
        send(exchange, status, body, "application/json");
    }

    /**
     * The answer (built in the {@code topics} form) in the packed form the shim asks for: a
     * {@code topics} list in the order of the request's {@code partitions}, and
     * {@code {"topic_indices": "<base64>", "partitions": "<base64>"}} per member, pairs sorted by
     * (topic index, partition) as the sidecar sends them.
     */
    static ObjectNode packed(JsonNode request, ObjectNode answer) {
        List<String> topics = new ArrayList<>();
        request.get("partitions").fieldNames().forEachRemaining(topics::add);
        ObjectNode packed = answer.deepCopy();
        ArrayNode names = UserDataJson.MAPPER.createArrayNode();
        topics.forEach(names::add);
        packed.set("topics", names);
        for (String key : List.of("assignment", "revoked")) {
            ObjectNode members = UserDataJson.MAPPER.createObjectNode();
            for (Map.Entry<String, JsonNode> member : answer.get(key).properties()) {
                members.set(member.getKey(), packedMember(member.getValue(), topics));
            }
            packed.set(key, members);
        }
        return packed;
    }

    /** One member's {@code {topic: [partition, ...]}} in the packed form over {@code topics}. */
    private static ObjectNode packedMember(JsonNode member, List<String> topics) {
        List<int[]> pairs = new ArrayList<>();
        for (int i = 0; i < topics.size(); i++) {
            for (JsonNode partition : member.path(topics.get(i))) {
                pairs.add(new int[] {i, partition.intValue()});
            }
        }
        pairs.sort(Comparator.<int[]>comparingInt(pair -> pair[0])
                .thenComparingLong(pair -> Integer.toUnsignedLong(pair[1])));
        int[] topicIndices = pairs.stream().mapToInt(pair -> pair[0]).toArray();
        int[] partitions = pairs.stream().mapToInt(pair -> pair[1]).toArray();
        ObjectNode packed = UserDataJson.MAPPER.createObjectNode();
        packed.put("topic_indices", littleEndianBase64(topicIndices));
        packed.put("partitions", littleEndianBase64(partitions));
        return packed;
    }

    /** {@code values} as unsigned 32-bit little-endian integers, in standard base64 with padding. */
    static String littleEndianBase64(int... values) {
        ByteBuffer bytes = ByteBuffer.allocate(values.length * Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asIntBuffer().put(values);
        return Base64.getEncoder().encodeToString(bytes.array());
    }

    private static void send(HttpExchange exchange, int status, String body, String contentType) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
