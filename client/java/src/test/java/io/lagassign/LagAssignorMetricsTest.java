package io.lagassign;

import static io.lagassign.Groups.cluster;
import static io.lagassign.Groups.configured;
import static io.lagassign.Groups.twoMembersOnT0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Cluster;
import org.junit.jupiter.api.Test;

/** The Micrometer binder over the shim's MBeans: consumers before and after binding, and gone. */
class LagAssignorMetricsTest {
    private static final Cluster CLUSTER = cluster(Map.of("t0", 4));

    private static FunctionCounter decisions(SimpleMeterRegistry registry, String clientId, String outcome) {
        return registry.find(LagAssignorMetrics.DECISIONS).tag("client.id", clientId).tag("outcome", outcome)
                .functionCounter();
    }

    @Test
    void everyConsumersDecisionsAreCountedByOutcome() throws IOException {
        URI stopped = FakeSidecar.stoppedUrl();
        LagAssignor before = configured(stopped, "metrics-consumer-1");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new LagAssignorMetrics().bindTo(registry);
        LagAssignor after = null;
        try (FakeSidecar fake = new FakeSidecar(FakeSidecar.Behaviour.LAG_BLIND)) {
            before.assign(CLUSTER, twoMembersOnT0());
            before.assign(CLUSTER, twoMembersOnT0());
            after = configured(fake.url(), "metrics-consumer-2");
            after.assign(CLUSTER, twoMembersOnT0());

            assertEquals(2.0, decisions(registry, "metrics-consumer-1", "connection_refused").count());
            assertEquals(0.0, decisions(registry, "metrics-consumer-1", "sidecar").count());
            assertEquals(1.0, decisions(registry, "metrics-consumer-2", "lag_blind").count());
            assertEquals(DecisionCounters.OUTCOMES.size(),
                    registry.find(LagAssignorMetrics.DECISIONS).tag("client.id", "metrics-consumer-2")
                            .functionCounters().size(), "every outcome from the start");
            TimeGauge last = registry.find(LagAssignorMetrics.LAST_DECISION).tag("client.id", "metrics-consumer-1")
                    .timeGauge();
            assertTrue(last.value(TimeUnit.MILLISECONDS) > 0.0);
        } finally {
            before.close();
            if (after != null) {
                after.close();
            }
        }
        assertNull(decisions(registry, "metrics-consumer-1", "connection_refused"), "closed: its meters go");
        assertNull(decisions(registry, "metrics-consumer-2", "lag_blind"));
    }
}
