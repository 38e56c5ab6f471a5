package io.lagassign;

/**
 * The assignment user data of the {@code lagassign} protocol: how the leader made the
 * assignment, {@code {"v": 1, "by": "sidecar", "strategy": "balanced"}} or
 * {@code {"v": 1, "by": "range", "reason": "timeout"}}; an answer used although the sidecar
 * knew no lag, or not all of it, is {@code {"v": 1, "by": "sidecar", "strategy": "balanced",
 * "reason": "lag_blind"}} (or {@code "lag_partial"}).
 *
 * @param by       {@code "sidecar"}, {@code "range"} or {@code "cooperative-sticky"} (the fallback of
 *                 {@link CooperativeLagAssignor})
 * @param strategy the sidecar's strategy, or null
 * @param reason   the fallback reason's label, {@code lag_blind}, {@code lag_partial}, or null
 */
public record AssignmentNote(String by, String strategy, String reason) {
}
