package io.lagassign.broker;

import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignorException;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;

/**
 * The fallback assignor's answer for one call, computed at most once, on the coordinator's thread.
 *
 * <p>The plugin computes it while its own thread asks the sidecar, so that a call that ends
 * in a fallback (a timeout above all) returns at the deadline with the answer ready instead of
 * computing it after: the coordinator's thread is then held for the deadline, not the deadline
 * plus the fallback's own time (measured at 50 × 10,000 on a busy broker: 1 to 29 ms). An answered
 * call discards it. What it throws (a {@link PartitionAssignorException} above all) is kept and
 * thrown where the answer is used, as the fallback would throw it without lagassign.
 *
 * <p>Only the coordinator's thread may call it: Kafka's group spec is not safe to read from two
 * threads at once, so the plugin's thread works on its own copy ({@link GroupView}).
 */
final class PreparedFallback {
    private final ConsumerGroupPartitionAssignor assignor;
    private final GroupSpec spec;
    private final SubscribedTopicDescriber describer;
    private GroupAssignment answer;
    private RuntimeException refused;
    private long tookNanos = -1;

    PreparedFallback(ConsumerGroupPartitionAssignor assignor, GroupSpec spec, SubscribedTopicDescriber describer) {
        this.assignor = assignor;
        this.spec = spec;
        this.describer = describer;
    }

    /** Computes the answer now, if not yet; never throws what the fallback throws here. */
    void prepare() {
        if (tookNanos >= 0) {
            return;
        }
        long started = System.nanoTime();
        try {
            answer = assignor.assign(spec, describer);
        } catch (RuntimeException e) {
            refused = e;
        } finally {
            tookNanos = System.nanoTime() - started;
        }
    }

    /** The fallback's answer (computed now if it was not prepared), or what it threw. */
    GroupAssignment answer() {
        prepare();
        if (refused != null) {
            throw refused;
        }
        return answer;
    }

    /** How long the fallback assignor took; -1 before {@link #prepare}. */
    long tookNanos() {
        return tookNanos;
    }
}
