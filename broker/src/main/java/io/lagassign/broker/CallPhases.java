package io.lagassign.broker;

/**
 * When each step of one call ended, counted from the coordinator's call: the plugin's thread
 * taking the work, the request built, the sidecar's answer received, the answer read and checked.
 * Written by the plugin's thread, read by the coordinator's (a timed-out call says how far it got).
 * As a log argument it is written out only when the line is logged.
 */
final class CallPhases {
    private static final long NOT_YET = -1;

    private final long startedNanos;
    private volatile long taken = NOT_YET;
    private volatile long built = NOT_YET;
    private volatile long answered = NOT_YET;
    private volatile long read = NOT_YET;

    CallPhases(long startedNanos) {
        this.startedNanos = startedNanos;
    }

    void taken() {
        taken = System.nanoTime();
    }

    void built() {
        built = System.nanoTime();
    }

    void answered() {
        answered = System.nanoTime();
    }

    void read() {
        read = System.nanoTime();
    }

    /**
     * The steps for the log, each in milliseconds with its own length: "waited for the plugin's
     * thread 0.1 ms, request built 3.2 ms, sidecar answered 38.0 ms, answer read 2.1 ms"; a step
     * not ended says so ("the sidecar had not answered").
     */
    @Override
    public String toString() {
        return describe();
    }

    String describe() {
        StringBuilder out = new StringBuilder();
        long from = startedNanos;
        from = step(out, from, taken, "waited for the plugin's thread", "the plugin's thread had not taken the call");
        from = step(out, from, built, "request built", "the request was not built");
        from = step(out, from, answered, "sidecar answered", "the sidecar had not answered");
        step(out, from, read, "answer read", "the answer was not read");
        return out.toString();
    }

    private static long step(StringBuilder out, long from, long at, String done, String notDone) {
        if (from == NOT_YET) {
            return NOT_YET;
        }
        if (!out.isEmpty()) {
            out.append(", ");
        }
        if (at == NOT_YET) {
            out.append(notDone);
            return NOT_YET;
        }
        out.append(done).append(' ').append(String.format(java.util.Locale.ROOT, "%.1f", (at - from) / 1e6))
                .append(" ms");
        return at;
    }
}
