package io.lagassign.broker;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Stops asking a failing sidecar for a while, so a dead or slow sidecar costs the coordinator
 * threads nothing once it has failed {@code threshold} times in a row.
 *
 * <p>Closed: every call asks. After {@code threshold} consecutive failures it opens: no call asks
 * until the cool-off has passed. Then it lets exactly one call probe (half-open): a success closes
 * it, a failure opens it for another cool-off. Safe to use from every coordinator thread at once.
 */
final class CircuitBreaker {
    private final int threshold;
    private final long coolOffNanos;
    private final LongSupplier nanoTime;

    private int consecutiveFailures;
    private boolean open;
    private long openUntilNanos;
    private boolean probing;
    private long opened;

    CircuitBreaker(int threshold, Duration coolOff, LongSupplier nanoTime) {
        if (threshold < 1) {
            throw new IllegalArgumentException("threshold must be at least 1");
        }
        this.threshold = threshold;
        this.coolOffNanos = coolOff.toNanos();
        this.nanoTime = nanoTime;
    }

    /** True if this call may ask the sidecar; a true in the half-open state makes it the probe. */
    synchronized boolean allowRequest() {
        if (!open) {
            return true;
        }
        if (probing || nanoTime.getAsLong() - openUntilNanos < 0) {
            return false;
        }
        probing = true;
        return true;
    }

    /** The sidecar answered (a usable answer, or a prompt "unknown group"). */
    synchronized void onSuccess() {
        consecutiveFailures = 0;
        open = false;
        probing = false;
    }

    /** This call did not ask after all (nothing to ask about): a half-open probe slot is freed. */
    synchronized void release() {
        probing = false;
    }

    /** The sidecar failed; returns true when this failure opened the breaker. */
    synchronized boolean onFailure() {
        consecutiveFailures++;
        boolean wasProbe = probing;
        probing = false;
        if (wasProbe || (!open && consecutiveFailures >= threshold)) {
            open = true;
            openUntilNanos = nanoTime.getAsLong() + coolOffNanos;
            opened++;
            return true;
        }
        return false;
    }

    synchronized boolean isOpen() {
        return open;
    }

    /** How many times the breaker has opened. */
    synchronized long timesOpened() {
        return opened;
    }
}
