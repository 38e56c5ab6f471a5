package io.lagassign;

/**
 * Why a sidecar answer that the leader used was not lag-aware, or only in part. The answer is
 * still valid and used; the leader logs it at WARNING and counts it under {@link #label()}, and
 * the assignment's user data carries the label as its {@code reason}.
 */
public enum LagBlindness {
    /** The sidecar knew no lag at all ({@code lag.source == "none"}): count balance only. */
    LAG_BLIND("lag_blind"),
    /** Some partitions' lag was assumed ({@code lag.complete == false} or {@code unknown_partitions > 0}). */
    LAG_PARTIAL("lag_partial");

    private final String label;

    LagBlindness(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
