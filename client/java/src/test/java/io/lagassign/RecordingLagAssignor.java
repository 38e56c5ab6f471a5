package io.lagassign;

/**
 * {@link LagAssignor} as is, remembering the last instance the consumer created, so the
 * {@link GroupMember} program (one consumer per JVM) can report the shim's counters and notes.
 */
public class RecordingLagAssignor extends LagAssignor {
    private static volatile LagAssignor latest;

    public RecordingLagAssignor() {
        latest = this;
    }

    /** The last {@link RecordingLagAssignor} or {@link Cooperative} made. */
    static LagAssignor latest() {
        return latest;
    }

    /** {@link CooperativeLagAssignor} as is, remembered the same way. */
    public static class Cooperative extends CooperativeLagAssignor {
        public Cooperative() {
            latest = this;
        }
    }
}
