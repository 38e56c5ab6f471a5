package io.lagassign;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
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
}
