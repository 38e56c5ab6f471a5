package io.lagassign;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.ConfigException;

/**
 * The consumer's own settings the shim reads beside its {@code lagassign.*} ones: who the member is
 * and where a partition without a committed offset starts.
 *
 * @param groupId the consumer's {@code group.id} (required: the shim assigns a consumer group)
 * @param instanceId its {@code group.instance.id}, or null
 * @param rack its {@code client.rack}, or null
 * @param clientId its {@code client.id} (the consumer fills in its generated one), or null
 * @param resetPolicy its {@code auto.offset.reset} as the request's {@code reset_policy} (earliest,
 *     latest or none; Kafka's default, latest, when unset), or null when the policy has no equivalent
 *     in the request (e.g. {@code by_duration:P1D}); see {@code resetPolicyUnsent}
 * @param resetPolicyUnsent its {@code auto.offset.reset} when it is not sent, else null
 */
record ConsumerSettings(
        String groupId, String instanceId, String rack, String clientId, String resetPolicy, String resetPolicyUnsent) {
    /** The reset policies the request's {@code reset_policy} knows. */
    static final List<String> RESET_POLICIES = List.of("earliest", "latest", "none");
    /** Kafka's own default of {@code auto.offset.reset}. */
    static final String DEFAULT_RESET_POLICY = "latest";

    /** Reads them from the consumer's configs; ConfigException without a {@code group.id}. */
    static ConsumerSettings of(Map<String, ?> consumerConfigs) {
        String groupId = nonBlank(consumerConfigs.get(ConsumerConfig.GROUP_ID_CONFIG));
        if (groupId == null) {
            throw new ConfigException(ConsumerConfig.GROUP_ID_CONFIG,
                    consumerConfigs.get(ConsumerConfig.GROUP_ID_CONFIG),
                    "io.lagassign.LagAssignor assigns a consumer group: set group.id");
        }
        String reset = nonBlank(consumerConfigs.get(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG));
        String policy = reset == null ? DEFAULT_RESET_POLICY : reset.strip().toLowerCase(Locale.ROOT);
        boolean sent = RESET_POLICIES.contains(policy);
        return new ConsumerSettings(groupId,
                nonBlank(consumerConfigs.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG)),
                nonBlank(consumerConfigs.get(ConsumerConfig.CLIENT_RACK_CONFIG)),
                nonBlank(consumerConfigs.get(ConsumerConfig.CLIENT_ID_CONFIG)),
                sent ? policy : null,
                sent ? null : reset);
    }

    private static String nonBlank(Object value) {
        return value == null || value.toString().isBlank() ? null : value.toString();
    }
}
