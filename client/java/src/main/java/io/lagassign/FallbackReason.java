package io.lagassign;

/**
 * Why the group leader did not use the sidecar's answer; {@link #label()} is the name the
 * fallback is counted and logged by, the same as in the Python shim.
 */
public enum FallbackReason {
    /** No answer within {@code lagassign.timeout.ms}. */
    TIMEOUT("timeout"),
    /** The sidecar's host name does not resolve. */
    UNKNOWN_HOST("unknown_host"),
    /** Nothing listens at the sidecar's address. */
    CONNECTION_REFUSED("connection_refused"),
    /** Any other connection error: reset, no route, TLS. */
    UNREACHABLE("unreachable"),
    /** An HTTP status other than 200. */
    STATUS("status"),
    /** Not JSON, or not the answer's shape. */
    MALFORMED("malformed"),
    /** The answer breaks the leader's own metadata: a member or partition missing, a partition twice. */
    INVALID("invalid"),
    /** The leader's own metadata has gaps. */
    METADATA("metadata");

    private final String label;

    FallbackReason(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
