package io.lagassign;

import java.util.Locale;

/**
 * Why a sidecar answer that the leader used was not lag-aware, or only in part. The answer is
 * still valid and used; the leader logs it at WARNING and counts it under {@link #label()}, and
 * the assignment's user data carries the label as its {@code reason}.
 */
public enum LagBlindness {
    /** The sidecar knew no lag at all ({@code lag.source == "none"}): count balance only. */
    LAG_BLIND,
    /** Some partitions' lag was assumed ({@code lag.complete == false} or {@code unknown_partitions > 0}). */
    LAG_PARTIAL;

    /** The name in lower case, e.g. {@code lag_blind}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
