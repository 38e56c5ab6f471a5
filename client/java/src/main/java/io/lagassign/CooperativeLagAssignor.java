package io.lagassign;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.common.Cluster;

/**
 * {@link LagAssignor} for the cooperative rebalance protocol: a rebalance moves only what changes,
 * and every partition that keeps its owner is consumed on through it.
 *
 * <pre>
 * group.protocol=classic
 * partition.assignment.strategy=io.lagassign.CooperativeLagAssignor
 * lagassign.url=http://127.0.0.1:8321
 * </pre>
 *
 * <p>The leader asks the sidecar with {@code "protocol": "cooperative"}, with each member's owned
 * partitions as Kafka's consumer reports them; the sidecar withholds (under {@code revoked}) every
 * partition that changes owner, and the next rebalance, which Kafka's consumer starts after it
 * revokes them, gives them to their new members. The answer is checked as {@link LagAssignor}'s is,
 * plus the cooperative rules ({@link CooperativeRules}); Kafka's consumer checks them once more. On
 * any problem it falls back to Kafka's own {@link CooperativeStickyAssignor}, whose subscription
 * user data travels inside this protocol's (field {@code cooperative_sticky}, base64).
 *
 * <p>Its protocol is named {@code lagassign-cooperative}, so a group never mixes it with eager
 * {@link LagAssignor} leaders, which would hand a partition straight to a new owner while a
 * cooperative member still consumes it. It supports EAGER as well, for the two-bounce upgrade
 * Kafka documents: first {@code io.lagassign.CooperativeLagAssignor,io.lagassign.LagAssignor}
 * (still eager; nothing is owned during an eager rebalance, so nothing is withheld), then
 * {@code io.lagassign.CooperativeLagAssignor} alone. Python members cannot join such a group: the
 * Python shims are eager only.
 */
public class CooperativeLagAssignor extends LagAssignor {
    public static final String NAME = "lagassign-cooperative";

    private final CooperativeStickyAssignor fallback = new CooperativeStickyAssignor();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<RebalanceProtocol> supportedProtocols() {
        return List.of(RebalanceProtocol.COOPERATIVE, RebalanceProtocol.EAGER);
    }

    @Override
    public ByteBuffer subscriptionUserData(Set<String> topics) {
        return CarriedUserData.carry(super.subscriptionUserData(topics), fallback.subscriptionUserData(topics));
    }

    @Override
    public void onAssignment(Assignment assignment, ConsumerGroupMetadata metadata) {
        super.onAssignment(assignment, metadata);
        fallback.onAssignment(assignment, metadata);
    }

    /** The group with each member's owned partitions and generation as Kafka's consumer sent them. */
    @Override
    GroupView view(Cluster metadata, GroupSubscription groupSubscription) throws FallbackException {
        Map<String, Subscription> owning = new TreeMap<>();
        groupSubscription.groupSubscription().forEach((memberId, subscription) -> {
            Subscription kafkaOwned = new Subscription(subscription.topics(),
                    CarriedUserData.withKafkaOwnership(subscription), subscription.ownedPartitions(),
                    subscription.generationId().orElse(-1), subscription.rackId());
            kafkaOwned.setGroupInstanceId(subscription.groupInstanceId());
            owning.put(memberId, kafkaOwned);
        });
        return super.view(metadata, new GroupSubscription(owning));
    }

    @Override
    byte[] requestBody(GroupView view) {
        return view.requestBody(config().strategy(), config().consumer().resetPolicy(), "cooperative");
    }

    @Override
    AnswerReader.Answer read(byte[] body, GroupView view) throws FallbackException {
        return AnswerReader.read(body, view, true);
    }

    @Override
    ConsumerPartitionAssignor fallbackAssignor() {
        return fallback;
    }

    /** The subscriptions with CooperativeStickyAssignor's own user data in place of this protocol's. */
    @Override
    GroupSubscription fallbackSubscription(GroupSubscription groupSubscription) {
        Map<String, Subscription> unwrapped = new TreeMap<>();
        groupSubscription.groupSubscription().forEach((memberId, subscription) -> {
            Subscription sticky = new Subscription(subscription.topics(),
                    CarriedUserData.carried(subscription.userData()), subscription.ownedPartitions(),
                    subscription.generationId().orElse(-1), subscription.rackId());
            sticky.setGroupInstanceId(subscription.groupInstanceId());
            unwrapped.put(memberId, sticky);
        });
        return new GroupSubscription(unwrapped);
    }
}
