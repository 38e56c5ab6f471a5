package io.lagassign;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
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
    private static final Comparator<TopicPartition> BY_TOPIC_AND_PARTITION =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    private AssignmentDigest() {
    }

    /**
     * The digest of {@code assignment}: the members in order, each one's lines written and hashed
     * in turn, so a million partitions take no object and no sort key each.
     */
    static String of(Map<String, List<TopicPartition>> assignment) {
        MessageDigest sha256;
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
        List<String> members = new ArrayList<>(assignment.keySet());
        members.sort(Comparator.naturalOrder());
        StringBuilder lines = new StringBuilder();
        for (String member : members) {
            TopicPartition[] partitions = assignment.get(member).toArray(new TopicPartition[0]);
            if (!inOrder(partitions)) {
                Arrays.sort(partitions, BY_TOPIC_AND_PARTITION);
            }
            lines.setLength(0);
            for (TopicPartition tp : partitions) {
                lines.append(member).append('\t').append(tp.topic()).append('\t').append(tp.partition()).append('\n');
            }
            sha256.update(lines.toString().getBytes(StandardCharsets.UTF_8));
        }
        return HexFormat.of().formatHex(sha256.digest(), 0, 8);
    }

    /** Whether the partitions are sorted by topic and partition already (the checked answer's are). */
    private static boolean inOrder(TopicPartition[] partitions) {
        for (int i = 1; i < partitions.length; i++) {
            if (BY_TOPIC_AND_PARTITION.compare(partitions[i - 1], partitions[i]) > 0) {
                return false;
            }
        }
        return true;
    }
}
