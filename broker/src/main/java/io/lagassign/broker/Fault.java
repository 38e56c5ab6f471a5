package io.lagassign.broker;

import java.util.Locale;

/**
 * Why a group got the fallback assignor's answer; {@link #label()} is the name it is counted and
 * logged by.
 */
public enum Fault {
    /** No answer within {@code lagassign.timeout.ms}. */
    TIMEOUT(true),
    /** Connection refused, reset, unknown host. */
    UNREACHABLE(true),
    /** An HTTP status other than 200, 404 and 409. */
    STATUS(true),
    /** Not JSON, or not the answer's shape. */
    MALFORMED(true),
    /** The answer breaks the group's spec: a member or partition missing, a partition twice. */
    INVALID(true),
    /** 404 or 409: the sidecar answered promptly that it cannot resolve the group. Not a failure. */
    UNKNOWN_GROUP(false),
    /** The breaker is open after repeated failures: the sidecar was not asked. */
    BREAKER_OPEN(false),
    /** The group's spec names a topic the broker's metadata no longer has: Kafka's own assignor decides. */
    METADATA(false),
    /** Every thread of the plugin's own is busy with other calls: not asked, not the sidecar's fault. */
    BUSY(false);

    private final boolean failure;

    Fault(boolean failure) {
        this.failure = failure;
    }

    /** The name in lower case, e.g. {@code unknown_group}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** True when it counts towards opening the circuit breaker. */
    public boolean isFailure() {
        return failure;
    }
}
