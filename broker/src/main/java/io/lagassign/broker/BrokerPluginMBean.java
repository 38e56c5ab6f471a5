package io.lagassign.broker;

/**
 * The broker plugin's JMX view, {@code io.lagassign:type=BrokerPlugin}: one per broker, whatever
 * the number of times Kafka configured the assignor. Counters count since the broker started.
 */
public interface BrokerPluginMBean {
    /** assign() calls for groups on {@code lagassign}. */
    long getCalls();

    /** Calls answered by the sidecar (the group got lagassign's assignment). */
    long getAnswered();

    /** Calls that got the fallback assignor's answer, every reason together. */
    long getFallbacks();

    /** Time the coordinator's thread spent in assign(), the fallback's own time included, summed. */
    double getCallTimeMsTotal();

    /** The longest assign() since the broker started. */
    double getCallTimeMsMax();

    /** 1 while the circuit breaker keeps the sidecar from being asked (open, checking or half-open). */
    int getBreakerOpen();

    /** closed, open, checking, half_open or probing. */
    String getBreakerState();

    /** How many times the breaker opened. */
    long getBreakerOpenedTotal();

    /** How many times it closed again. */
    long getBreakerClosedTotal();

    /** The deadline in force ({@code lagassign.timeout.ms}; follows a dynamic change). */
    int getTimeoutMs();

    /** The breaker's threshold in force ({@code lagassign.breaker.failures}). */
    int getBreakerFailures();

    /** The breaker's cool-off in force ({@code lagassign.breaker.cooloff.ms}). */
    long getBreakerCoolOffMs();

    /** The URL in force ({@code lagassign.url}). */
    String getUrl();

    /** The fallback assignor in force ({@code lagassign.fallback}). */
    String getFallback();

    /** How many times Kafka configured an instance of the assignor (all share this state). */
    long getConfigured();

    /** Last start-up or reconfiguration check of the sidecar: ok, or what was wrong. */
    String getSidecarCheck();
}
