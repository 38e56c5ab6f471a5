package io.lagassign;

/**
 * {@link LagAssignor} as is, remembering the last instance the consumer created, so the
 * {@link GroupMember} program (one consumer per JVM) can report the shim's counters and notes.
 */
public class RecordingLagAssignor extends LagAssignor {
    private static volatile RecordingLagAssignor latest;

    public RecordingLagAssignor() {
        latest = this;
    }

    static RecordingLagAssignor latest() {
        return latest;
    }
}
