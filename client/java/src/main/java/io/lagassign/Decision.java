package io.lagassign;

import java.time.Duration;
import java.util.Optional;

/**
 * How one rebalance led by this consumer was assigned: by the sidecar's answer or by Kafka's
 * RangeAssignor, why, and how long the leader took to decide.
 *
 * @param by       {@code "sidecar"} or {@code "range"}
 * @param strategy the sidecar's strategy, when its answer was used
 * @param reason   the fallback reason, when it was not
 * @param message  what went wrong, when it was not
 * @param elapsed  from the start of {@code assign} to the decision
 */
public record Decision(
        String by, Optional<String> strategy, Optional<FallbackReason> reason, Optional<String> message,
        Duration elapsed) {

    public static final String BY_SIDECAR = "sidecar";
    public static final String BY_RANGE = "range";

    static Decision sidecar(String strategy, Duration elapsed) {
        return new Decision(BY_SIDECAR, Optional.ofNullable(strategy), Optional.empty(), Optional.empty(), elapsed);
    }

    static Decision range(FallbackException cause, Duration elapsed) {
        return new Decision(
                BY_RANGE, Optional.empty(), Optional.of(cause.reason()), Optional.ofNullable(cause.getMessage()),
                elapsed);
    }

    /** The note the leader attaches to every member's assignment. */
    AssignmentNote note() {
        return new AssignmentNote(by, strategy.orElse(null), reason.map(FallbackReason::label).orElse(null));
    }
}
