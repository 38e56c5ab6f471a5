package io.lagassign.broker;

import static io.lagassign.broker.Groups.ORDERS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignorException;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.junit.jupiter.api.Test;

class PreparedFallbackTest {
    private static final Groups.Spec GROUP = Groups.group().topic(ORDERS, 4).member("c-1", Set.of(ORDERS))
            .member("c-2", Set.of(ORDERS));

    /** Kafka's uniform assignor, counting its calls; or refusing each, when {@code refuse}. */
    private static final class Counting implements ConsumerGroupPartitionAssignor {
        private final boolean refuse;
        private int calls;

        Counting(boolean refuse) {
            this.refuse = refuse;
        }

        @Override
        public String name() {
            return "counting";
        }

        @Override
        public GroupAssignment assign(GroupSpec spec, SubscribedTopicDescriber describer) {
            calls++;
            if (refuse) {
                throw new PartitionAssignorException("refused " + calls);
            }
            return new UniformAssignor().assign(spec, describer);
        }
    }

    @Test
    void preparedOnceTheAnswerIsTheSameWhenUsed() {
        Counting assignor = new Counting(false);
        PreparedFallback fallback = new PreparedFallback(assignor, GROUP.spec(), GROUP.describer());
        assertEquals(-1, fallback.tookNanos());
        fallback.prepare();
        fallback.prepare();
        GroupAssignment answer = fallback.answer();
        assertSame(answer, fallback.answer());
        assertEquals(1, assignor.calls);
        assertTrue(fallback.tookNanos() >= 0);
        assertEquals(Groups.plain(new UniformAssignor().assign(GROUP.spec(), GROUP.describer())),
                Groups.plain(answer));
    }

    @Test
    void notPreparedItIsComputedWhenUsed() {
        Counting assignor = new Counting(false);
        PreparedFallback fallback = new PreparedFallback(assignor, GROUP.spec(), GROUP.describer());
        fallback.answer();
        assertEquals(1, assignor.calls);
    }

    @Test
    void theFallbacksRefusalIsKeptAndThrownOnlyWhereTheAnswerIsUsed() {
        Counting assignor = new Counting(true);
        PreparedFallback fallback = new PreparedFallback(assignor, GROUP.spec(), GROUP.describer());
        fallback.prepare(); // a call the sidecar answers never sees the refusal
        PartitionAssignorException first = assertThrows(PartitionAssignorException.class, fallback::answer);
        PartitionAssignorException again = assertThrows(PartitionAssignorException.class, fallback::answer);
        assertSame(first, again);
        assertEquals("refused 1", first.getMessage());
        assertEquals(1, assignor.calls);
    }
}
