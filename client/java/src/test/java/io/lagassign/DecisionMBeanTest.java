package io.lagassign;

import static io.lagassign.Groups.cluster;
import static io.lagassign.Groups.configured;
import static io.lagassign.Groups.twoMembersOnT0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.Map;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.utils.AppInfoParser;
import org.junit.jupiter.api.Test;

class DecisionMBeanTest {
    private static final Cluster CLUSTER = cluster(Map.of("t0", 4));
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    private static long counter(ObjectName name, String attribute) throws JMException {
        return (Long) SERVER.getAttribute(name, attribute);
    }

    @Test
    void theCountersAreReadBackThroughJmxByReason() throws IOException, JMException {
        URI stopped = FakeSidecar.stoppedUrl();
        LagAssignor leader = configured(stopped, "orders-consumer-1");
        ObjectName name = new ObjectName("io.lagassign:type=LagAssignor,client-id=orders-consumer-1");
        try {
            assertEquals(name, leader.mbeanName().orElseThrow());
            assertTrue(SERVER.isRegistered(name));
            assertEquals(0L, counter(name, "decisions"));
            assertEquals("", SERVER.getAttribute(name, "last-decision"));
            leader.assign(CLUSTER, twoMembersOnT0());
            leader.assign(CLUSTER, twoMembersOnT0());
            try (FakeSidecar fake = new FakeSidecar(FakeSidecar.Behaviour.LAG_BLIND)) {
                LagAssignor blind = configured(fake.url(), "orders-consumer-2");
                try {
                    blind.assign(CLUSTER, twoMembersOnT0());
                    ObjectName other = blind.mbeanName().orElseThrow();
                    assertEquals(1L, counter(other, "decisions-lag_blind"));
                    assertEquals(1L, counter(other, "answers"));
                    assertEquals(0L, counter(other, "fallbacks"));
                } finally {
                    blind.close();
                }
            }
            assertEquals(2L, counter(name, "decisions"));
            assertEquals(2L, counter(name, "fallbacks"));
            assertEquals(2L, counter(name, "decisions-connection_refused"));
            assertEquals(0L, counter(name, "decisions-timeout"));
            assertEquals(0L, counter(name, "decisions-unknown_host"));
            assertEquals(0L, counter(name, "answers"));
            assertEquals("connection_refused", SERVER.getAttribute(name, "last-decision"));
            assertTrue((Double) SERVER.getAttribute(name, "last-decision-ms") > 0.0);
        } finally {
            leader.close();
        }
        assertFalse(SERVER.isRegistered(name));
    }

    @Test
    void theMBeanGoesWhenTheConsumersOwnAppInfoGoes() throws IOException, JMException {
        LagAssignor member = configured(FakeSidecar.stoppedUrl(), "orders-consumer-3");
        ObjectName name = member.mbeanName().orElseThrow();
        // What KafkaConsumer's constructor and close() do with its app-info MBean.
        AppInfoParser.registerAppInfo("kafka.consumer", "orders-consumer-3", null, 0L);
        assertTrue(SERVER.isRegistered(name));
        AppInfoParser.unregisterAppInfo("kafka.consumer", "orders-consumer-3", null);
        assertFalse(SERVER.isRegistered(name));
        assertTrue(member.mbeanName().isPresent(), "the assignor is not told; its close() is then a no-op");
        member.close();
    }

    @Test
    void aNewConsumerWithTheSameClientIdTakesTheNameOver() throws IOException, JMException {
        URI stopped = FakeSidecar.stoppedUrl();
        LagAssignor first = configured(stopped, "orders-consumer-4");
        LagAssignor second = configured(stopped, "orders-consumer-4");
        ObjectName name = second.mbeanName().orElseThrow();
        second.assign(CLUSTER, twoMembersOnT0());
        first.close();
        assertTrue(SERVER.isRegistered(name), "closing the first must not remove the second's MBean");
        assertEquals(1L, counter(name, "fallbacks"));
        second.close();
        assertFalse(SERVER.isRegistered(name));
    }
}
