package io.lagassign.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CallPhasesTest {
    private static final String MS = "\\d+\\.\\d ms";

    @Test
    void aFinishedCallNamesEveryStepWithItsLength() {
        CallPhases phases = new CallPhases(System.nanoTime());
        phases.taken();
        phases.built();
        phases.answered();
        phases.read();
        String said = phases.describe();
        assertTrue(said.matches("waited for the plugin's thread " + MS + ", request built " + MS
                + ", sidecar answered " + MS + ", answer read " + MS), said);
    }

    @Test
    void aCallAbandonedWhileTheSidecarAnswersSaysSo() {
        CallPhases phases = new CallPhases(System.nanoTime());
        phases.taken();
        phases.built();
        String said = phases.describe();
        assertTrue(said.matches("waited for the plugin's thread " + MS + ", request built " + MS
                + ", the sidecar had not answered"), said);
    }

    @Test
    void aCallNeverTakenSaysOnlyThat() {
        assertEquals("the plugin's thread had not taken the call", new CallPhases(System.nanoTime()).describe());
    }
}
