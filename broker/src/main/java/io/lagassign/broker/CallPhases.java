package io.lagassign.broker;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;

/**
 * When each step of one call ended, counted from the coordinator's call: the plugin's thread
 * taking the work (after the coordinator's thread read the group's spec), the request built, the
 * sidecar's answer received, the answer read and checked.
 * Building and reading also say how much of their time was the plugin thread's own CPU, so a step
 * slow for want of a core is told from one slow in itself. Written by the plugin's thread, read by
 * the coordinator's (a timed-out call says how far it got). As a log argument it is written out
 * only when the line is logged. The sidecar's answer says how long its own steps took
 * ({@code Server-Timing}): they follow its step, so a slow sidecar is told from a slow exchange.
 */
final class CallPhases {
    private static final long NOT_YET = -1;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final long startedNanos;
    private volatile long taken = NOT_YET;
    private volatile long built = NOT_YET;
    private volatile long answered = NOT_YET;
    private volatile long read = NOT_YET;
    // The plugin thread's CPU time at each step's end (NOT_YET where the JVM does not measure it).
    private volatile long takenCpu = NOT_YET;
    private volatile long builtCpu = NOT_YET;
    private volatile long answeredCpu = NOT_YET;
    private volatile long readCpu = NOT_YET;
    private volatile String sidecarSteps;

    CallPhases(long startedNanos) {
        this.startedNanos = startedNanos;
    }

    void taken() {
        takenCpu = cpuNow();
        taken = System.nanoTime();
    }

    void built() {
        builtCpu = cpuNow();
        built = System.nanoTime();
    }

    /** @param serverTiming the answer's {@code Server-Timing} header, or null */
    void answered(String serverTiming) {
        answeredCpu = cpuNow();
        answered = System.nanoTime();
        sidecarSteps = serverTiming == null ? null : sidecarSteps(serverTiming);
    }

    /**
     * "read 0.41, parse 3.10, answer 20.31, total 25.02 ms" from "read;dur=0.41, parse;dur=3.10, ...";
     * a part without a duration is left out, a header without any is null.
     */
    static String sidecarSteps(String serverTiming) {
        StringBuilder out = new StringBuilder();
        for (String part : serverTiming.split(",")) {
            String[] fields = part.trim().split(";");
            for (int i = 1; i < fields.length; i++) {
                String field = fields[i].trim();
                if (field.startsWith("dur=") && fields[0].trim().matches("[A-Za-z_-]{1,32}")) {
                    if (!out.isEmpty()) {
                        out.append(", ");
                    }
                    String value = field.substring(4);
                    out.append(fields[0].trim()).append(' ')
                            .append(value.matches("\\d{1,9}(\\.\\d{1,6})?") ? value : "?");
                }
            }
        }
        return out.isEmpty() ? null : out.append(" ms").toString();
    }

    void read() {
        readCpu = cpuNow();
        read = System.nanoTime();
    }

    private static long cpuNow() {
        return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : NOT_YET;
    }

    @Override
    public String toString() {
        return describe();
    }

    /**
     * The steps for the log, each in milliseconds with its own length: "waited for the plugin's
     * thread 0.1 ms, request built 3.2 ms (2.9 ms CPU), sidecar answered 38.0 ms (its own steps:
     * read 0.41, parse 3.10, answer 20.31, total 25.02 ms), answer read 2.1 ms (2.0 ms CPU)"; a
     * step not ended says so ("the sidecar had not answered").
     */
    String describe() {
        StringBuilder out = new StringBuilder();
        long from = step(out, startedNanos, taken, "waited for the plugin's thread",
                "the plugin's thread had not taken the call", NOT_YET, NOT_YET);
        from = step(out, from, built, "request built", "the request was not built", takenCpu, builtCpu);
        from = step(out, from, answered, "sidecar answered", "the sidecar had not answered", NOT_YET, NOT_YET);
        String steps = sidecarSteps;
        if (from != NOT_YET && steps != null) {
            out.append(" (its own steps: ").append(steps).append(')');
        }
        step(out, from, read, "answer read", "the answer was not read", answeredCpu, readCpu);
        return out.toString();
    }

    private static long step(StringBuilder out, long from, long at, String done, String notDone, long cpuFrom,
            long cpuAt) {
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
        out.append(done).append(' ').append(millis(at - from)).append(" ms");
        if (cpuFrom != NOT_YET && cpuAt != NOT_YET) {
            out.append(" (").append(millis(cpuAt - cpuFrom)).append(" ms CPU)");
        }
        return at;
    }

    private static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.1f", nanos / 1e6);
    }
}
