package io.lagassign.broker;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;

/**
 * The {@code lagassign.*} values in force, read from one checked {@link LagassignConfig}. Replaced
 * whole when the broker's configuration changes, so a call reads one consistent set.
 */
record Settings(URI base, Duration timeout, String token, String fallbackName, int breakerFailures,
        Duration breakerCoolOff) {

    static Settings of(LagassignConfig config) {
        String text = config.url().toString().strip();
        String root = text.endsWith("/") ? text.substring(0, text.length() - 1) : text;
        return new Settings(URI.create(root), config.timeout(), config.token(), config.fallback(),
                config.breakerFailures(), config.breakerCoolOff());
    }

    URI assignUri() {
        return URI.create(base + SidecarClient.ASSIGN_PATH);
    }

    URI livezUri() {
        return URI.create(base + SidecarClient.LIVEZ_PATH);
    }

    ConsumerGroupPartitionAssignor fallback() {
        return "range".equals(fallbackName) ? RANGE : UNIFORM;
    }

    /** True when reaching the sidecar changed: its URL or the token. */
    boolean sidecarChanged(Settings other) {
        return other == null || !base.equals(other.base) || !Objects.equals(token, other.token);
    }

    /** What differs from {@code before}, as {@code key old -> new} (the token never shown). */
    List<String> changesSince(Settings before) {
        List<String> out = new ArrayList<>();
        if (!base.equals(before.base)) {
            out.add(LagassignConfig.URL_CONFIG + " " + before.base + " -> " + base);
        }
        if (!timeout.equals(before.timeout)) {
            out.add(LagassignConfig.TIMEOUT_MS_CONFIG + " " + before.timeout.toMillis() + " -> " + timeout.toMillis());
        }
        if (!Objects.equals(token, before.token)) {
            out.add(LagassignConfig.TOKEN_CONFIG + " (changed, " + (token == null ? "now unset" : "set") + ")");
        }
        if (!fallbackName.equals(before.fallbackName)) {
            out.add(LagassignConfig.FALLBACK_CONFIG + " " + before.fallbackName + " -> " + fallbackName);
        }
        if (breakerFailures != before.breakerFailures) {
            out.add(LagassignConfig.BREAKER_FAILURES_CONFIG + " " + before.breakerFailures + " -> " + breakerFailures);
        }
        if (!breakerCoolOff.equals(before.breakerCoolOff)) {
            out.add(LagassignConfig.BREAKER_COOLOFF_MS_CONFIG + " " + before.breakerCoolOff.toMillis() + " -> "
                    + breakerCoolOff.toMillis());
        }
        return out;
    }

    @Override
    public String toString() {
        return "Settings[" + base + ", timeout " + timeout.toMillis() + " ms, token " + (token == null ? "unset" : "set")
                + ", fallback " + fallbackName + ", breaker " + breakerFailures + " / " + breakerCoolOff.toMillis()
                + " ms]";
    }

    private static final ConsumerGroupPartitionAssignor UNIFORM = new UniformAssignor();
    private static final ConsumerGroupPartitionAssignor RANGE = new RangeAssignor();
}
