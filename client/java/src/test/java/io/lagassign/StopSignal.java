package io.lagassign;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/** How the tests stop a member program: a line "stop" on its stdin, or stdin closed. */
final class StopSignal {
    private StopSignal() {
    }

    /** Blocks until stdin says "stop" or closes. */
    static void await() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null && !"stop".equals(line.strip())) {
                // only "stop" means anything
            }
        } catch (IOException e) {
            // stdin gone: stop as well
        }
    }

    /** Runs {@code onStop} on a daemon thread once stdin says "stop" or closes. */
    static void watch(Runnable onStop) {
        Thread stdin = new Thread(() -> {
            await();
            onStop.run();
        }, "stdin");
        stdin.setDaemon(true);
        stdin.start();
    }
}
