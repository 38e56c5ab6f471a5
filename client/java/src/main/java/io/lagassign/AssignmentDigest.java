package io.lagassign;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * A short digest of a group's assignment, the same as the sidecar's {@code assignment_digest} in
 * the rebalance advice: the first 16 hex digits of the SHA-256 of one line per assigned partition,
 * {@code member_id TAB topic TAB partition LF}, sorted by member id, topic and partition number.
 * Example: {@code c-1} holding {@code t0-0} and {@code c-2} holding {@code t0-1} hash
 * {@code "c-1\tt0\t0\nc-2\tt0\t1\n"} to {@code 72ad50af9b0c62e8}.
 *
 * <p>The {@link RebalanceAdvisor} acts only on advice about the assignment its member made as
 * leader, so advice the sidecar computed before the last rebalance never forces another.
 */
final class AssignmentDigest {
    private record Line(String member, String topic, int partition) {
    }

    private AssignmentDigest() {
    }

    static String of(Map<String, List<TopicPartition>> assignment) {
        List<Line> lines = new ArrayList<>();
        assignment.forEach((member, partitions) -> partitions.forEach(
                tp -> lines.add(new Line(member, tp.topic(), tp.partition()))));
        lines.sort(Comparator.comparing(Line::member).thenComparing(Line::topic).thenComparingInt(Line::partition));
        StringBuilder text = new StringBuilder();
        lines.forEach(l -> text.append(l.member()).append('\t').append(l.topic()).append('\t')
                .append(l.partition()).append('\n'));
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(text.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
