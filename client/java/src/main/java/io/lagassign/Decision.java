package io.lagassign;

import java.time.Duration;
import java.util.Optional;

/**
 * How one rebalance led by this consumer was assigned: by the sidecar's answer or by Kafka's
 * assignor the shim falls back to (RangeAssignor, or CooperativeStickyAssignor for
 * {@link CooperativeLagAssignor}), why, and how long the leader took to decide.
 *
 * @param by        {@code "sidecar"}, {@code "range"} or {@code "cooperative-sticky"}
 * @param strategy  the sidecar's strategy, when its answer was used
 * @param reason    the fallback reason, when it was not
 * @param message   what went wrong, when it was not
 * @param elapsed   from the start of {@code assign} to the decision
 * @param blindness when the sidecar's answer was used although it was blind to lag, or partly
 */
public record Decision(
        String by, Optional<String> strategy, Optional<FallbackReason> reason, Optional<String> message,
        Duration elapsed, Optional<LagBlindness> blindness) {

    public static final String BY_SIDECAR = "sidecar";
    public static final String BY_RANGE = "range";
    public static final String BY_COOPERATIVE_STICKY = "cooperative-sticky";
    /** The outcome label of a sidecar answer that knew every partition's lag. */
    public static final String LAG_AWARE = "sidecar";

    static Decision sidecar(String strategy, Optional<LagBlindness> blindness, Duration elapsed) {
        return new Decision(BY_SIDECAR, Optional.ofNullable(strategy), Optional.empty(), Optional.empty(), elapsed,
                blindness);
    }

    static Decision range(FallbackException cause, Duration elapsed) {
        return fallback(BY_RANGE, cause, elapsed);
    }

    /** A rebalance assigned by Kafka's assignor named {@code by}, for {@code cause}. */
    static Decision fallback(String by, FallbackException cause, Duration elapsed) {
        return new Decision(
                by, Optional.empty(), Optional.of(cause.reason()), Optional.ofNullable(cause.getMessage()),
                elapsed, Optional.empty());
    }

    /**
     * The label this decision is counted by: {@code sidecar} for a lag-aware answer, {@code lag_blind}
     * or {@code lag_partial} for an answer used without (full) lag, else the fallback reason.
     */
    public String outcome() {
        return reason.map(FallbackReason::label)
                .or(() -> blindness.map(LagBlindness::label))
                .orElse(LAG_AWARE);
    }

    /** The note the leader attaches to every member's assignment. */
    AssignmentNote note() {
        String why = reason.map(FallbackReason::label).or(() -> blindness.map(LagBlindness::label)).orElse(null);
        return new AssignmentNote(by, strategy.orElse(null), why);
    }
}
