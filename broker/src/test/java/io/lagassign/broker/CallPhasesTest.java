package io.lagassign.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class CallPhasesTest {
    private static final String MS = "\\d+\\.\\d ms";
    private static final String CPU = " \\(\\d+\\.\\d ms CPU\\)";

    @Test
    void aFinishedCallNamesEveryStepWithItsLength() {
        CallPhases phases = new CallPhases(System.nanoTime());
        phases.taken();
        phases.built();
        phases.answered(null);
        phases.read();
        String said = phases.describe();
        assertTrue(said.matches("waited for the plugin's thread " + MS + ", request built " + MS + CPU
                + ", sidecar answered " + MS + ", answer read " + MS + CPU), said);
    }

    @Test
    void theSidecarsOwnStepsFollowItsAnswer() {
        CallPhases phases = new CallPhases(System.nanoTime());
        phases.taken();
        phases.built();
        phases.answered("read;dur=0.41, parse;dur=3.10, turn;dur=0.00, answer;dur=20.31, total;dur=25.02");
        phases.read();
        String said = phases.describe();
        assertTrue(said.matches("waited for the plugin's thread " + MS + ", request built " + MS + CPU
                + ", sidecar answered " + MS + " \\(its own steps: read 0.41, parse 3.10, turn 0.00, answer 20.31, "
                + "total 25.02 ms\\), answer read " + MS + CPU), said);
    }

    @Test
    void aServerTimingHeaderIsReadOnlyForItsDurations() {
        assertEquals("lag 1.5, total 2 ms", CallPhases.sidecarSteps("lag;desc=\"x\";dur=1.5, miss, total;dur=2"));
        assertEquals("total ? ms", CallPhases.sidecarSteps("total;dur=1e9999"));
        assertEquals(null, CallPhases.sidecarSteps("cache;desc=hit"));
    }

    @Test
    void aCallAbandonedWhileTheSidecarAnswersSaysSo() {
        CallPhases phases = new CallPhases(System.nanoTime());
        phases.taken();
        phases.built();
        String said = phases.describe();
        assertTrue(said.matches("waited for the plugin's thread " + MS + ", request built " + MS + CPU
                + ", the sidecar had not answered"), said);
    }

    @Test
    void theCpuABuildUsedIsCountedAndIsNoMoreThanItsTime() {
        CallPhases phases = new CallPhases(System.nanoTime());
        phases.taken();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long until = threads.getCurrentThreadCpuTime() + 10_000_000;
        long spun = 0;
        while (threads.getCurrentThreadCpuTime() < until) {
            spun++;
        }
        phases.built();
        Matcher built = Pattern.compile("request built (\\d+\\.\\d) ms \\((\\d+\\.\\d) ms CPU\\)")
                .matcher(phases.describe());
        assertTrue(built.find(), phases.describe());
        double wall = Double.parseDouble(built.group(1));
        double cpu = Double.parseDouble(built.group(2));
        assertTrue(cpu >= 10.0 && cpu <= wall + 0.1, phases.describe() + " after " + spun + " turns");
    }

    @Test
    void aCallNeverTakenSaysOnlyThat() {
        assertEquals("the plugin's thread had not taken the call", new CallPhases(System.nanoTime()).describe());
    }
}
