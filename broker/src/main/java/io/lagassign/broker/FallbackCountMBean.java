package io.lagassign.broker;

/** {@code io.lagassign:type=BrokerPluginFallbacks,reason=<reason>}: fallbacks for one reason. */
public interface FallbackCountMBean {
    long getCount();
}
