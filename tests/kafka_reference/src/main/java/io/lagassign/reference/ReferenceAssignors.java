package io.lagassign.reference;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.common.TopicPartition;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs Kafka's own assignors on JSON lines read from stdin, one request per line, and writes one
 * answer line per request to stdout:
 * {@code {"assignment": {member: {topic: [sorted partitions]}}, "compute_seconds": float}}.
 *
 * <p>{@code assignor} is {@code range}, {@code roundrobin} or {@code cooperative-sticky}.
 * {@code compute_seconds} times the {@code assign} call alone (the fastest of {@code repeat}
 * runs, each on a new assignor), not the JSON nor the building of cluster metadata. A request
 * that fails gets {@code {"error": "..."}} and the next line is read as usual.
 */
public final class ReferenceAssignors {
    private ReferenceAssignors() {
    }

    static ConsumerPartitionAssignor assignor(String name) {
        switch (name) {
            case "range":
                return new RangeAssignor();
            case "roundrobin":
                return new RoundRobinAssignor();
            case "cooperative-sticky":
                return new CooperativeStickyAssignor();
            default:
                throw new IllegalArgumentException(
                        "assignor '" + name + "' is unknown; use range, roundrobin or cooperative-sticky");
        }
    }

    public static void main(String[] args) throws IOException {
        ObjectMapper mapper = new ObjectMapper();
        JsonFactory json = mapper.getFactory();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
        Writer out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank())
                continue;
            AssignRequest request;
            GroupAssignment answer = null;
            long fastest = Long.MAX_VALUE;
            try {
                request = new AssignRequest(mapper.readTree(line));
                for (int run = 0; run < request.repeat; run++) {
                    ConsumerPartitionAssignor assignor = assignor(request.assignor);
                    ConsumerPartitionAssignor.GroupSubscription group = request.groupSubscription();
                    long start = System.nanoTime();
                    answer = assignor.assign(request.cluster, group);
                    fastest = Math.min(fastest, System.nanoTime() - start);
                }
            } catch (IOException | RuntimeException e) {
                try (JsonGenerator error = json.createGenerator(out)) {
                    error.configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false);
                    error.writeStartObject();
                    error.writeStringField("error", e.getClass().getSimpleName() + ": " + e.getMessage());
                    error.writeEndObject();
                }
                out.write('\n');
                out.flush();
                continue;
            }
            write(json, out, request, answer, fastest / 1e9);
        }
        out.flush();
    }

    private static void write(JsonFactory json, Writer out, AssignRequest request,
                              GroupAssignment answer, double seconds) throws IOException {
        Map<String, Assignment> byMember = answer.groupAssignment();
        try (JsonGenerator g = json.createGenerator(out)) {
            g.configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false);
            g.writeStartObject();
            g.writeObjectFieldStart("assignment");
            for (String memberId : request.memberIds) {
                Map<String, List<Integer>> byTopic = new TreeMap<>();
                Assignment assignment = byMember.get(memberId);
                if (assignment != null) {
                    for (TopicPartition tp : assignment.partitions())
                        byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
                }
                g.writeObjectFieldStart(memberId);
                for (Map.Entry<String, List<Integer>> topic : byTopic.entrySet()) {
                    List<Integer> partitions = topic.getValue();
                    Collections.sort(partitions);
                    g.writeArrayFieldStart(topic.getKey());
                    for (int p : partitions)
                        g.writeNumber(p);
                    g.writeEndArray();
                }
                g.writeEndObject();
            }
            g.writeEndObject();
            g.writeNumberField("compute_seconds", seconds);
            g.writeEndObject();
        }
        out.write('\n');
        out.flush();
    }
}
