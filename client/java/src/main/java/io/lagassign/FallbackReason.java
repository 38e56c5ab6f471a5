package io.lagassign;

import java.util.Locale;

/**
 * Why the group leader did not use the sidecar's answer; {@link #label()} is the name the
 * fallback is counted and logged by, the same as in the Python shim.
 */
public enum FallbackReason {
    /** No answer within {@code lagassign.timeout.ms}. */
    TIMEOUT,
    /** The sidecar's host name does not resolve. */
    UNKNOWN_HOST,
    /** Nothing listens at the sidecar's address. */
    CONNECTION_REFUSED,
    /** Any other connection error: reset, no route, TLS. */
    UNREACHABLE,
    /** An HTTP status other than 200. */
    STATUS,
    /** Not JSON, or not the answer's shape. */
    MALFORMED,
    /** The answer breaks the leader's own metadata: a member or partition missing, a partition twice. */
    INVALID,
    /** The leader's own metadata has gaps. */
    METADATA;

    /** The name in lower case, e.g. {@code connection_refused}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
