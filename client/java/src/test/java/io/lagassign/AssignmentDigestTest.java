package io.lagassign;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The same values as the sidecar's test of {@code assignment_digest}: the two must agree. */
class AssignmentDigestTest {

    @Test
    void theDigestIsTheSidecars() {
        Map<String, List<TopicPartition>> two = new TreeMap<>();
        two.put("c-2", List.of(new TopicPartition("t0", 1)));
        two.put("c-1", List.of(new TopicPartition("t0", 0)));
        assertEquals("72ad50af9b0c62e8", AssignmentDigest.of(two));

        Map<String, List<TopicPartition>> unordered = new TreeMap<>();
        unordered.put("c-2", List.of(new TopicPartition("t0", 10), new TopicPartition("t0", 2)));
        unordered.put("c-1", List.of(new TopicPartition("t1", 0)));
        unordered.put("c-3", List.of());
        assertEquals("f3e1456c923a0402", AssignmentDigest.of(unordered));
    }

    @Test
    void anyAssignmentDigestsAsItsSortedLines() throws Exception {
        Random random = new Random(12);
        for (int round = 0; round < 200; round++) {
            Map<String, List<TopicPartition>> assignment = new HashMap<>();
            List<String> lines = new ArrayList<>();
            for (int m = random.nextInt(5); m > 0; m--) {
                String member = "c-" + random.nextInt(12);
                List<TopicPartition> partitions = new ArrayList<>();
                for (int p = random.nextInt(8); p > 0; p--) {
                    partitions.add(new TopicPartition("t" + random.nextInt(12), random.nextInt(30)));
                }
                List<TopicPartition> replaced = assignment.put(member, partitions);
                if (replaced != null) {
                    lines.removeIf(line -> line.startsWith(member + "\t"));
                }
                partitions.forEach(tp -> lines.add(member + "\t" + tp.topic() + "\t" + tp.partition() + "\n"));
            }
            lines.sort((a, b) -> {
                String[] x = a.split("\t");
                String[] y = b.split("\t");
                int byMember = x[0].compareTo(y[0]);
                int byTopic = x[1].compareTo(y[1]);
                return byMember != 0 ? byMember : byTopic != 0 ? byTopic
                        : Integer.compare(Integer.parseInt(x[2].trim()), Integer.parseInt(y[2].trim()));
            });
            byte[] hash = MessageDigest.getInstance("SHA-256")
                    .digest(String.join("", lines).getBytes(StandardCharsets.UTF_8));
            assertEquals(HexFormat.of().formatHex(hash, 0, 8), AssignmentDigest.of(assignment), assignment::toString);
        }
    }
}
