package io.lagassign.broker;

/** The sidecar's answer cannot be used; the group gets the fallback assignor's answer. */
final class FallbackException extends Exception {
    private static final long serialVersionUID = 1L;

    private final Fault fault;

    FallbackException(Fault fault, String message) {
        super(message, null, false, false);
        this.fault = fault;
    }

    Fault fault() {
        return fault;
    }
}
