package io.lagassign;

/**
 * The assignment user data of the {@code lagassign} protocol: how the leader made the
 * assignment, {@code {"v": 1, "by": "sidecar", "strategy": "balanced"}} or
 * {@code {"v": 1, "by": "range", "reason": "timeout"}}.
 *
 * @param by       {@code "sidecar"} or {@code "range"}
 * @param strategy the sidecar's strategy, or null
 * @param reason   the fallback reason's label, or null
 */
public record AssignmentNote(String by, String strategy, String reason) {
}
