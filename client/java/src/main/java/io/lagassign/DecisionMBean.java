package io.lagassign;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.ListenerNotFoundException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.MBeanServerDelegate;
import javax.management.MBeanServerNotification;
import javax.management.MalformedObjectNameException;
import javax.management.Notification;
import javax.management.NotificationListener;
import javax.management.ObjectName;
import javax.management.relation.MBeanServerNotificationFilter;
import org.apache.kafka.common.utils.Sanitizer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's {@link DecisionCounters} as a read-only JMX MBean beside the consumer's own metrics:
 * {@code io.lagassign:type=LagAssignor,client-id=<client.id>}.
 *
 * <p>Attributes: {@code decisions} (all rebalances this consumer led), {@code answers} (assigned by
 * the sidecar), {@code fallbacks} (assigned by Kafka's RangeAssignor), {@code decisions-<outcome>}
 * for each outcome label ({@code decisions-sidecar}, {@code decisions-lag_blind},
 * {@code decisions-timeout}, ...), {@code last-decision} (the last outcome, or empty) and
 * {@code last-decision-ms}.
 *
 * <p>Registered by {@code configure()}. Kafka's consumer never closes its assignors, so the MBean
 * follows the consumer's own {@code kafka.consumer:type=app-info,id=<client.id>} MBean: when the
 * consumer unregisters that one in {@code close()}, this one goes too ({@link LagAssignor#close()}
 * does the same at once). A later consumer with the same {@code client.id} takes the name over.
 */
final class DecisionMBean implements DynamicMBean, NotificationListener {
    static final String DOMAIN = "io.lagassign";
    private static final String CONSUMER_APP_INFO = "kafka.consumer:type=app-info,id=";
    private static final Logger LOG = LoggerFactory.getLogger(DecisionMBean.class);
    /** Which instance holds each name, so a closing consumer never removes its successor's MBean. */
    private static final Map<ObjectName, DecisionMBean> HOLDERS = new ConcurrentHashMap<>();

    private final DecisionCounters counters;
    private final ObjectName name;
    private final ObjectName consumerAppInfo;
    private final MBeanServer server;

    private DecisionMBean(DecisionCounters counters, ObjectName name, ObjectName consumerAppInfo, MBeanServer server) {
        this.counters = counters;
        this.name = name;
        this.consumerAppInfo = consumerAppInfo;
        this.server = server;
    }

    static ObjectName nameOf(String clientId) throws MalformedObjectNameException {
        return new ObjectName(DOMAIN + ":type=LagAssignor,client-id=" + Sanitizer.jmxSanitize(clientId));
    }

    /** Registers the counters under the consumer's client id in the platform MBean server; null when it cannot. */
    static DecisionMBean register(DecisionCounters counters, String clientId) {
        if (clientId == null) {
            LOG.debug("lagassign: no client.id in the consumer's configs: no JMX MBean");
            return null;
        }
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try {
            ObjectName name = nameOf(clientId);
            DecisionMBean bean = new DecisionMBean(counters, name,
                    new ObjectName(CONSUMER_APP_INFO + Sanitizer.jmxSanitize(clientId)), server);
            DecisionMBean before = HOLDERS.put(name, bean);
            if (before != null) {
                before.stopFollowing();
            }
            try {
                server.registerMBean(bean, name);
            } catch (InstanceAlreadyExistsException e) {
                server.unregisterMBean(name);
                server.registerMBean(bean, name);
            }
            MBeanServerNotificationFilter filter = new MBeanServerNotificationFilter();
            filter.disableAllObjectNames();
            filter.enableObjectName(bean.consumerAppInfo);
            filter.enableType(MBeanServerNotification.UNREGISTRATION_NOTIFICATION);
            server.addNotificationListener(MBeanServerDelegate.DELEGATE_NAME, bean, filter, null);
            return bean;
        } catch (JMException e) {
            LOG.warn("lagassign: cannot register the JMX MBean of client {}: {}", clientId, e.toString());
            return null;
        }
    }

    ObjectName name() {
        return name;
    }

    /** Unregisters the MBean, if this instance still holds its name. */
    void unregister() {
        stopFollowing();
        if (HOLDERS.remove(name, this)) {
            try {
                server.unregisterMBean(name);
            } catch (InstanceNotFoundException e) {
                // already gone
            } catch (JMException e) {
                LOG.warn("lagassign: cannot unregister the JMX MBean {}: {}", name, e.toString());
            }
        }
    }

    private void stopFollowing() {
        try {
            server.removeNotificationListener(MBeanServerDelegate.DELEGATE_NAME, this);
        } catch (InstanceNotFoundException | ListenerNotFoundException e) {
            // not following
        }
    }

    /** The consumer's app-info MBean went away: the consumer is closed. */
    @Override
    public void handleNotification(Notification notification, Object handback) {
        if (notification instanceof MBeanServerNotification gone
                && MBeanServerNotification.UNREGISTRATION_NOTIFICATION.equals(gone.getType())
                && consumerAppInfo.equals(gone.getMBeanName())) {
            unregister();
        }
    }

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException {
        switch (attribute) {
            case "decisions":
                return counters.answers() + counters.fallbacks();
            case "answers":
                return counters.answers();
            case "fallbacks":
                return counters.fallbacks();
            case "last-decision":
                return counters.last() == null ? "" : counters.last().outcome();
            case "last-decision-ms":
                return counters.last() == null ? 0.0 : counters.last().elapsed().toNanos() / 1e6;
            default:
                if (attribute.startsWith("decisions-")) {
                    String outcome = attribute.substring("decisions-".length());
                    if (DecisionCounters.OUTCOMES.contains(outcome)) {
                        return counters.of(outcome);
                    }
                }
                throw new AttributeNotFoundException("no attribute '" + attribute + "' on " + name);
        }
    }

    @Override
    public AttributeList getAttributes(String[] attributes) {
        AttributeList out = new AttributeList();
        for (String attribute : attributes) {
            try {
                out.add(new Attribute(attribute, getAttribute(attribute)));
            } catch (AttributeNotFoundException e) {
                // JMX leaves unknown attributes out of the list
            }
        }
        return out;
    }

    @Override
    public void setAttribute(Attribute attribute) throws AttributeNotFoundException {
        throw new AttributeNotFoundException("the attributes of " + name + " are read-only");
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
        return new AttributeList();
    }

    @Override
    public Object invoke(String actionName, Object[] params, String[] signature) {
        throw new UnsupportedOperationException("the MBean " + name + " has no operations");
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        List<MBeanAttributeInfo> attributes = new ArrayList<>();
        attributes.add(counter("decisions", "Rebalances this consumer led"));
        attributes.add(counter("answers", "Rebalances assigned by the sidecar's answer, lag-blind ones included"));
        attributes.add(counter("fallbacks", "Rebalances assigned by Kafka's RangeAssignor"));
        for (String outcome : DecisionCounters.OUTCOMES) {
            attributes.add(counter("decisions-" + outcome, "Rebalances this consumer led with outcome " + outcome));
        }
        attributes.add(new MBeanAttributeInfo("last-decision", String.class.getName(),
                "Outcome of the last rebalance this consumer led, empty before the first", true, false, false));
        attributes.add(new MBeanAttributeInfo("last-decision-ms", double.class.getName(),
                "Milliseconds the leader took to decide the last rebalance", true, false, false));
        return new MBeanInfo(getClass().getName(), "lagassign decisions of one consumer",
                attributes.toArray(new MBeanAttributeInfo[0]), null, null, null);
    }

    private static MBeanAttributeInfo counter(String name, String description) {
        return new MBeanAttributeInfo(name, long.class.getName(), description, true, false, false);
    }
}
