package io.lagassign.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.junit.jupiter.api.Test;

class WarmUpTest {

    @Test
    void theMadeUpGroupIsReadWrittenAndItsPackedAnswerAcceptedAsTheFallbacksOwn() throws FallbackException {
        WarmUp.MadeUpGroup group = new WarmUp.MadeUpGroup(7, 3, 40);
        GroupView view = GroupView.of(group, group);
        assertEquals(7, view.members().size());
        assertEquals(120, view.partitionCount());
        for (ConsumerGroupPartitionAssignor fallback : new ConsumerGroupPartitionAssignor[] {
                new UniformAssignor(), new RangeAssignor()}) {
            GroupAssignment answer = fallback.assign(group, group);
            AssignAnswer.Checked read = AssignAnswer.read(WarmUp.packed(view, answer), view);
            assertEquals(Groups.plain(answer), Groups.plain(read.assignment()), fallback.name());
        }
    }

    @Test
    void eachRoundRunsEveryStepOnTheLargeGroup() {
        WarmUp.Rounds rounds = WarmUp.run(new UniformAssignor(), 2);
        assertEquals(2, rounds.nanos().length);
        assertTrue(rounds.firstNanos() > 0 && rounds.lastNanos() > 0);
        assertEquals(rounds.firstNanos() + rounds.lastNanos(), rounds.totalNanos());
    }
}
