package io.lagassign;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MBeanServerDelegate;
import javax.management.MBeanServerNotification;
import javax.management.MalformedObjectNameException;
import javax.management.Notification;
import javax.management.NotificationListener;
import javax.management.ObjectName;
import javax.management.relation.MBeanServerNotificationFilter;

/**
 * A Micrometer {@link MeterBinder} of the shim's decision counters, for every consumer of the
 * JVM that uses {@link LagAssignor} or {@link CooperativeLagAssignor}:
 *
 * <pre>{@code
 * new LagAssignorMetrics().bindTo(meterRegistry);   // Spring Boot: declare it as a @Bean
 * }</pre>
 *
 * <ul>
 * <li>{@code lagassign.client.decisions} (function counter; Prometheus
 * {@code lagassign_client_decisions_total}), tags {@code client.id} and {@code outcome}: the
 * rebalances the consumer led, one series per outcome ({@code sidecar}, {@code lag_blind},
 * {@code lag_partial} and each fallback reason), every one present at 0 from the start;</li>
 * <li>{@code lagassign.client.last.decision} (time gauge), tag {@code client.id}: how long the
 * leader took to decide the last one.</li>
 * </ul>
 *
 * <p>It reads the shim's JMX MBeans ({@code io.lagassign:type=LagAssignor,client-id=...}, see the
 * README), so it sees consumers made before and after it is bound: their meters come with their
 * MBean (when the consumer is built) and go with it (when it is closed). Consumers without a
 * {@code client.id} have no MBean and no meters. Micrometer is the application's own: the jar
 * does not bring it, and an application without it never loads this class.
 */
public final class LagAssignorMetrics implements MeterBinder, NotificationListener {
    public static final String DECISIONS = "lagassign.client.decisions";
    public static final String LAST_DECISION = "lagassign.client.last.decision";

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final Map<ObjectName, List<Meter>> meters = new ConcurrentHashMap<>();
    private final List<MeterRegistry> registries = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final ObjectName pattern;
    private boolean listening;

    public LagAssignorMetrics() {
        try {
            this.pattern = new ObjectName(DecisionMBean.DOMAIN + ":type=LagAssignor,*");
        } catch (MalformedObjectNameException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        registries.add(registry);
        if (!listening) {
            MBeanServerNotificationFilter filter = new MBeanServerNotificationFilter();
            filter.enableAllObjectNames();
            try {
                server.addNotificationListener(MBeanServerDelegate.DELEGATE_NAME, this, filter, null);
            } catch (InstanceNotFoundException e) {
                throw new IllegalStateException(e);
            }
            listening = true;
        }
        for (ObjectName name : server.queryNames(pattern, null)) {
            add(name, registry);
        }
    }

    @Override
    public synchronized void handleNotification(Notification notification, Object handback) {
        if (!(notification instanceof MBeanServerNotification change) || !pattern.apply(change.getMBeanName())) {
            return;
        }
        ObjectName name = change.getMBeanName();
        if (MBeanServerNotification.REGISTRATION_NOTIFICATION.equals(change.getType())) {
            registries.forEach(registry -> add(name, registry));
        } else if (MBeanServerNotification.UNREGISTRATION_NOTIFICATION.equals(change.getType())) {
            List<Meter> gone = meters.remove(name);
            if (gone != null) {
                for (Meter meter : gone) {
                    registries.forEach(registry -> registry.remove(meter));
                }
            }
        }
    }

    private void add(ObjectName name, MeterRegistry registry) {
        Tags tags = Tags.of("client.id", String.valueOf(name.getKeyProperty("client-id")));
        List<Meter> added = new ArrayList<>();
        for (String outcome : DecisionCounters.OUTCOMES) {
            added.add(FunctionCounter.builder(DECISIONS, name, n -> number(n, "decisions-" + outcome))
                    .description("Rebalances this consumer led, by outcome (the sidecar's answer or a fallback)")
                    .tags(tags.and("outcome", outcome))
                    .register(registry));
        }
        added.add(TimeGauge.builder(LAST_DECISION, name, TimeUnit.MILLISECONDS, n -> number(n, "last-decision-ms"))
                .description("How long the leader took to decide its last rebalance")
                .tags(tags)
                .register(registry));
        meters.merge(name, added, (before, more) -> {
            List<Meter> all = new ArrayList<>(before);
            all.addAll(more);
            return all;
        });
    }

    /** An attribute of the MBean as a number; NaN once the MBean is gone. */
    private double number(ObjectName name, String attribute) {
        try {
            Object value = server.getAttribute(name, attribute);
            return value instanceof Number n ? n.doubleValue() : Double.NaN;
        } catch (JMException e) {
            return Double.NaN;
        }
    }
}
