package io.lagassign.broker;

/**
 * Tells a configuration Kafka only validates from one it puts in force, by where the call comes
 * from: Kafka 4.3.1 validates a proposed dynamic broker configuration in
 * {@code kafka.server.DynamicBrokerConfig.validate} (it builds a whole broker configuration, and
 * with it configures a new instance of every assignor, then throws both away); every other
 * configuration it builds (start-up, and applying a committed change in {@code updateCurrentConfig})
 * is the broker's configuration from then on.
 */
final class DynamicChange {
    static final String DYNAMIC_BROKER_CONFIG = "kafka.server.DynamicBrokerConfig";
    static final String VALIDATE = "validate";

    private DynamicChange() {
    }

    /** True when this thread is inside Kafka's validation of a proposed dynamic change. */
    static boolean onlyValidating() {
        return StackWalker.getInstance().walk(frames -> frames.anyMatch(frame ->
                DYNAMIC_BROKER_CONFIG.equals(frame.getClassName()) && VALIDATE.equals(frame.getMethodName())));
    }
}
