package io.lagassign.broker;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Stops asking a failing sidecar for a while, so a dead or slow sidecar costs the coordinator
 * threads nothing once it has failed {@code threshold} times in a row.
 *
 * <p>Closed: every call asks. After {@code threshold} consecutive failures it opens: no call asks
 * until the cool-off has passed. The first call after the cool-off does not ask either: it starts a
 * check of the sidecar off the coordinator's thread ({@link Decision#CHECK}: {@code GET /livez},
 * which also opens a fresh connection, so the probe that follows is not spent on connecting to a
 * restarted sidecar). A good check lets exactly one call probe (half-open); a failed check opens the
 * breaker for another cool-off. The probe's success closes the breaker, its failure opens it again.
 * Safe to use from every coordinator thread at once; threshold and cool-off may change at any time.
 */
final class CircuitBreaker {

    /** What one call may do. */
    enum Decision {
        /** Ask the sidecar. */
        ASK,
        /** Do not ask; the breaker is open. */
        SKIP,
        /** Do not ask; the cool-off is over: check the sidecar in the background now. */
        CHECK
    }

    private enum State { CLOSED, OPEN, CHECKING, HALF_OPEN, PROBING }

    private final LongSupplier nanoTime;
    private int threshold;
    private long coolOffNanos;

    private State state = State.CLOSED;
    private int consecutiveFailures;
    private long openUntilNanos;
    private long openedAtNanos;
    private long opened;
    private long closed;

    CircuitBreaker(int threshold, Duration coolOff, LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        reconfigure(threshold, coolOff);
    }

    synchronized void reconfigure(int threshold, Duration coolOff) {
        if (threshold < 1) {
            throw new IllegalArgumentException("threshold must be at least 1");
        }
        this.threshold = threshold;
        this.coolOffNanos = coolOff.toNanos();
        if (state == State.OPEN) {
            // A shorter cool-off applies to the current one too.
            openUntilNanos = Math.min(openUntilNanos, nanoTime.getAsLong() + coolOffNanos);
        }
    }

    synchronized Decision decide() {
        switch (state) {
            case CLOSED:
                return Decision.ASK;
            case HALF_OPEN:
                state = State.PROBING;
                return Decision.ASK;
            case OPEN:
                if (nanoTime.getAsLong() - openUntilNanos < 0) {
                    return Decision.SKIP;
                }
                state = State.CHECKING;
                return Decision.CHECK;
            default:
                return Decision.SKIP;
        }
    }

    /** The background check's result: the sidecar answers (half-open), or not (open again). */
    synchronized void onCheck(boolean healthy) {
        if (state != State.CHECKING) {
            return;
        }
        if (healthy) {
            state = State.HALF_OPEN;
        } else {
            reopen();
        }
    }

    /** The sidecar answered (a usable answer, or a prompt "unknown group"); true when this closed it. */
    synchronized boolean onSuccess() {
        consecutiveFailures = 0;
        if (state == State.CLOSED) {
            return false;
        }
        state = State.CLOSED;
        closed++;
        return true;
    }

    /** This call did not ask after all (nothing to ask about): a half-open probe slot is freed. */
    synchronized void release() {
        if (state == State.PROBING) {
            state = State.HALF_OPEN;
        }
    }

    /**
     * The sidecar failed; returns true when this failure opened a closed breaker (a failed probe
     * opens it again for another cool-off, and returns false).
     */
    synchronized boolean onFailure() {
        consecutiveFailures++;
        if (state == State.PROBING) {
            reopen();
            return false;
        }
        if (state == State.CLOSED && consecutiveFailures >= threshold) {
            openedAtNanos = nanoTime.getAsLong();
            opened++;
            reopen();
            return true;
        }
        return false;
    }

    private void reopen() {
        state = State.OPEN;
        openUntilNanos = nanoTime.getAsLong() + coolOffNanos;
    }

    /** True unless closed: calls are not asking (open, checking) or only a probe asks (half-open). */
    synchronized boolean isOpen() {
        return state != State.CLOSED;
    }

    /** How long the breaker has been open, in milliseconds (0 when closed). */
    synchronized long openForMs() {
        return state == State.CLOSED ? 0 : (nanoTime.getAsLong() - openedAtNanos) / 1_000_000;
    }

    synchronized String state() {
        return state.name().toLowerCase(java.util.Locale.ROOT);
    }

    /** How many times the breaker has opened. */
    synchronized long timesOpened() {
        return opened;
    }

    /** How many times the breaker has closed again. */
    synchronized long timesClosed() {
        return closed;
    }

    synchronized int threshold() {
        return threshold;
    }
}
