package io.lagassign.broker;

/**
 * Why a group got the fallback assignor's answer; {@link #label()} is the name it is counted and
 * logged by.
 */
public enum Fault {
    /** No answer within {@code lagassign.timeout.ms}. */
    TIMEOUT("timeout", true),
    /** Connection refused, reset, unknown host. */
    UNREACHABLE("unreachable", true),
    /** An HTTP status other than 200, 404 and 409. */
    STATUS("status", true),
    /** Not JSON, or not the answer's shape. */
    MALFORMED("malformed", true),
    /** The answer breaks the group's spec: a member or partition missing, a partition twice. */
    INVALID("invalid", true),
    /** 404 or 409: the sidecar answered promptly that it cannot resolve the group. Not a failure. */
    UNKNOWN_GROUP("unknown_group", false),
    /** The breaker is open after repeated failures: the sidecar was not asked. */
    BREAKER_OPEN("breaker_open", false),
    /** The group's spec names a topic the broker's metadata no longer has: Kafka's own assignor decides. */
    METADATA("metadata", false),
    /** Every thread of the plugin's own is busy with other calls: not asked, not the sidecar's fault. */
    BUSY("busy", false);

    private final String label;
    private final boolean failure;

    Fault(String label, boolean failure) {
        this.label = label;
        this.failure = failure;
    }

    public String label() {
        return label;
    }

    /** True when it counts towards opening the circuit breaker. */
    public boolean isFailure() {
        return failure;
    }
}
