package io.lagassign;

/** Raised inside the shim when the leader must fall back; never leaves {@link LagAssignor#assign}. */
final class FallbackException extends Exception {
    private static final long serialVersionUID = 1L;

    private final FallbackReason reason;

    FallbackException(FallbackReason reason, String message) {
        super(message, null, false, false);
        this.reason = reason;
    }

    FallbackReason reason() {
        return reason;
    }
}
