package io.lagassign;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import javax.management.ObjectName;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link ConsumerPartitionAssignor} that asks the lagassign sidecar for a lag-balanced
 * assignment during the rebalance, and falls back to Kafka's own {@link RangeAssignor}.
 *
 * <pre>
 * group.protocol=classic
 * partition.assignment.strategy=io.lagassign.LagAssignor
 * lagassign.url=http://127.0.0.1:8321
 * lagassign.timeout.ms=1500
 * </pre>
 *
 * <p>Example: two consumers of {@code orders} (3 partitions) whose backlog is
 * {@code [100000, 60000, 50000]}. Range gives the first consumer partitions 0 and 1 (160,000
 * records behind) and the second partition 2 (50,000); the sidecar's answer gives the first
 * partition 0 and the second partitions 1 and 2 (100,000 against 110,000).
 *
 * <p>The group leader's {@link #assign} sends {@code POST /assign} with a hard total deadline,
 * checks the answer against its own metadata (every member present, every partition of every
 * subscribed topic exactly once, only to subscribers, nothing unknown) and uses it, logging the
 * decision at INFO with the numbers. An answer made without any lag ({@code lag_blind}) or without
 * some partitions' lag ({@code lag_partial}) is used but logged at WARNING and counted under its
 * own outcome. On a timeout, an unknown host, a refused or failed connection, a non-200, malformed
 * JSON or an invalid answer it uses Kafka's RangeAssignor instead, logs one WARNING with the reason
 * and counts it; it never throws into the consumer. The counts are the JMX MBean
 * {@code io.lagassign:type=LagAssignor,client-id=<client.id>}. The consumer's
 * {@code auto.offset.reset} travels with the request as {@code reset_policy}. Owned partitions, their generation, {@code group.instance.id} and {@code client.rack}
 * travel in the subscription user data, the same JSON as the Python shim's, so Python and Java
 * consumers can share a group.
 *
 * <p>Eager only: the fallback, RangeAssignor, is an eager assignor, so this assignor cannot promise
 * the cooperative protocol's rules. {@link CooperativeLagAssignor} is the cooperative one.
 */
public class LagAssignor implements ConsumerPartitionAssignor, Configurable, AutoCloseable {
    public static final String NAME = "lagassign";

    public static final String URL_CONFIG = "lagassign.url";
    public static final String URL_DOC = "Base URL of the lagassign sidecar, e.g. http://127.0.0.1:8321; "
            + "the leader sends POST <url>/assign.";

    public static final String TIMEOUT_MS_CONFIG = "lagassign.timeout.ms";
    public static final String TIMEOUT_MS_DOC = "Hard total deadline of the sidecar call in milliseconds, well under "
            + "session.timeout.ms; past it the rebalance uses Kafka's RangeAssignor.";
    public static final int DEFAULT_TIMEOUT_MS = 1500;

    public static final String STRATEGY_CONFIG = "lagassign.strategy";
    public static final String STRATEGY_DOC = "The sidecar's strategy: range, roundrobin, lag-aware, fair, sticky "
            + "or balanced; unset for the sidecar's default.";
    public static final String DEFAULT_STRATEGY = null;
    public static final List<String> STRATEGIES =
            List.of("range", "roundrobin", "lag-aware", "fair", "sticky", "balanced");

    public static final String TOKEN_CONFIG = "lagassign.token";
    public static final String TOKEN_DOC = "Bearer token, when the sidecar requires one.";

    private static final Logger LOG = LoggerFactory.getLogger(LagAssignor.class);

    private final RangeAssignor fallback = new RangeAssignor();
    private final DecisionCounters counters = new DecisionCounters();

    private LagAssignorConfig config;
    private Sidecar sidecar;
    private volatile DecisionMBean mbean;

    private volatile SubscriptionUserData state = SubscriptionUserData.NOTHING_KNOWN;
    private volatile AssignmentNote assignedBy;
    /** True from this consumer's {@code assign()} to its next {@code onAssignment()}: it leads. */
    private volatile boolean leading;
    /** The digest of the assignment this consumer's last {@code assign()} returned. */
    private volatile String ledDigest;
    private volatile String lastMemberId;

    @Override
    public void configure(Map<String, ?> configs) {
        LagAssignorConfig parsed = new LagAssignorConfig(configs);
        ConsumerSettings consumer = parsed.consumer();
        this.config = parsed;
        this.sidecar = new Sidecar(parsed.url(), parsed.timeout(), parsed.token());
        this.state = new SubscriptionUserData(Map.of(), null, consumer.instanceId(), consumer.rack());
        if (consumer.resetPolicyUnsent() != null) {
            LOG.info("lagassign: auto.offset.reset={} has no reset_policy in the sidecar's request (earliest, latest, "
                    + "none): requests of group {} leave it out and the sidecar uses its own setting",
                    consumer.resetPolicyUnsent(), consumer.groupId());
        }
        close();
        this.mbean = DecisionMBean.register(counters, consumer.clientId());
    }

    /**
     * Unregisters the JMX MBean. Kafka's consumer does not close its assignors; the MBean also goes
     * when the consumer that made this assignor closes (see the README).
     */
    @Override
    public void close() {
        DecisionMBean registered = mbean;
        mbean = null;
        if (registered != null) {
            registered.unregister();
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<RebalanceProtocol> supportedProtocols() {
        return List.of(RebalanceProtocol.EAGER);
    }

    @Override
    public ByteBuffer subscriptionUserData(Set<String> topics) {
        return UserDataJson.encode(state);
    }

    @Override
    public GroupAssignment assign(Cluster metadata, GroupSubscription groupSubscription) {
        if (sidecar == null) {
            throw new IllegalStateException("LagAssignor.configure() was not called");
        }
        leading = true;
        long started = System.nanoTime();
        int members = groupSubscription.groupSubscription().size();
        try {
            GroupView view = view(metadata, groupSubscription);
            byte[] answerBody = sidecar.postAssign(requestBody(view), started + sidecar.timeout().toNanos());
            AnswerReader.Answer answer = read(answerBody, view);
            Decision decision = Decision.sidecar(answer.strategy(), answer.blindness(),
                    Duration.ofNanos(System.nanoTime() - started));
            counters.count(decision);
            logAnswer(decision, answer, members, view.partitionCount());
            return noted(answer.assignment(), decision);
        } catch (FallbackException e) {
            Decision decision = Decision.fallback(fallbackAssignor().name(), e,
                    Duration.ofNanos(System.nanoTime() - started));
            counters.count(decision);
            Map<String, List<TopicPartition>> ranged = new TreeMap<>();
            fallbackAssignor().assign(metadata, fallbackSubscription(groupSubscription)).groupAssignment()
                    .forEach((memberId, given) -> ranged.put(memberId, given.partitions()));
            int partitions = ranged.values().stream().mapToInt(List::size).sum();
            LOG.warn("lagassign: group {} falls back to the {} assignor ({}): {}; {} members, {} partitions, "
                    + "member lag unknown, {} ms", config.consumer().groupId(), fallbackAssignor().name(),
                    e.reason().label(), e.getMessage(), members, partitions, millis(decision));
            return noted(ranged, decision);
        }
    }

    /** The group as this rebalance's request describes it. */
    GroupView view(Cluster metadata, GroupSubscription groupSubscription) throws FallbackException {
        return GroupView.of(config.consumer().groupId(), metadata, groupSubscription.groupSubscription());
    }

    /** The {@code POST /assign} body: an eager rebalance. */
    byte[] requestBody(GroupView view) {
        return view.requestBody(config.strategy(), config.consumer().resetPolicy());
    }

    /** The sidecar's answer, checked for an eager rebalance (nothing withheld). */
    AnswerReader.Answer read(byte[] body, GroupView view) throws FallbackException {
        return AnswerReader.read(body, view);
    }

    /** Kafka's assignor this shim falls back to. */
    ConsumerPartitionAssignor fallbackAssignor() {
        return fallback;
    }

    /** The group's subscriptions as the fallback assignor reads them. */
    GroupSubscription fallbackSubscription(GroupSubscription groupSubscription) {
        return groupSubscription;
    }

    LagAssignorConfig config() {
        return config;
    }

    private void logAnswer(Decision decision, AnswerReader.Answer answer, int members, int partitions) {
        // An answer made without any lag (lag source none, or not said) knows no member lag:
        // its stats say 0, which would read as a balanced group.
        boolean known = answer.lagSource() != null && !"none".equals(answer.lagSource());
        String numbers = String.format(Locale.ROOT,
                "%d members, %d partitions, max member lag %s, mean member lag %s, lag source %s, %s ms",
                members, partitions, !known || answer.maxLag() == null ? "unknown" : answer.maxLag(),
                !known || answer.meanLag() == null ? "unknown" : String.format(Locale.ROOT, "%.1f", answer.meanLag()),
                answer.lagSource() == null ? "unknown" : answer.lagSource(), millis(decision));
        String strategy = decision.strategy().orElse("?");
        if (decision.blindness().isPresent()) {
            LOG.warn("lagassign: group {} assigned by the sidecar ({}) without full lag ({}): {}; {}",
                    config.consumer().groupId(), strategy, decision.outcome(), answer.blindnessText(), numbers);
        } else {
            LOG.info("lagassign: group {} assigned by the sidecar ({}): {}", config.consumer().groupId(), strategy,
                    numbers);
        }
    }

    private static String millis(Decision decision) {
        return String.format(Locale.ROOT, "%.1f", decision.elapsed().toNanos() / 1e6);
    }

    private GroupAssignment noted(Map<String, List<TopicPartition>> assignment, Decision decision) {
        ledDigest = AssignmentDigest.of(assignment);
        Map<String, Assignment> out = new TreeMap<>();
        assignment.forEach((memberId, partitions) ->
                out.put(memberId, new Assignment(partitions, UserDataJson.encode(decision.note()))));
        return new GroupAssignment(out);
    }

    @Override
    public void onAssignment(Assignment assignment, ConsumerGroupMetadata metadata) {
        Map<String, List<Integer>> owned = new TreeMap<>();
        for (TopicPartition tp : assignment.partitions()) {
            owned.computeIfAbsent(tp.topic(), topic -> new ArrayList<>()).add(tp.partition());
        }
        owned.values().forEach(Collections::sort);
        Integer generation = metadata != null && metadata.generationId() >= 0 ? metadata.generationId() : null;
        SubscriptionUserData before = state;
        state = new SubscriptionUserData(owned, generation, before.instanceId(), before.rack());
        assignedBy = UserDataJson.decodeNote(assignment.userData()).orElse(null);
        recordLeadership(metadata);
        if (LOG.isDebugEnabled()) {
            LOG.debug("lagassign: group {} generation {}: {} partitions assigned by {}", config == null ? "?"
                    : config.consumer().groupId(), generation, assignment.partitions().size(),
                    assignedBy == null ? "an unknown leader" : assignedBy);
        }
    }

    private void recordLeadership(ConsumerGroupMetadata metadata) {
        boolean led = leading;
        leading = false;
        String previous = lastMemberId;
        if (previous != null) {
            LeaderRecord.followed(previous);
        }
        if (metadata == null || metadata.memberId() == null || metadata.memberId().isEmpty()) {
            lastMemberId = null;
            return;
        }
        lastMemberId = metadata.memberId();
        if (led) {
            LeaderRecord.led(metadata.memberId(), metadata.generationId(), ledDigest);
        }
    }

    /** Rebalances this consumer led on the range fallback, by reason label (those not 0). */
    public Map<String, Long> fallbackCounts() {
        List<String> reasons = new ArrayList<>();
        for (FallbackReason reason : FallbackReason.values()) {
            reasons.add(reason.label());
        }
        return counters.nonZero(reasons);
    }

    /** Rebalances this consumer led on an answer without full lag: {@code lag_blind}, {@code lag_partial}. */
    public Map<String, Long> lagBlindCounts() {
        List<String> labels = new ArrayList<>();
        for (LagBlindness blindness : LagBlindness.values()) {
            labels.add(blindness.label());
        }
        return counters.nonZero(labels);
    }

    /** Rebalances this consumer led on the sidecar's answer, lag-blind ones included. */
    public long answers() {
        return counters.answers();
    }

    /** Every rebalance this consumer led, by outcome ({@link Decision#outcome()}), those not 0. */
    public Map<String, Long> decisionCounts() {
        return counters.nonZero(DecisionCounters.OUTCOMES);
    }

    /** The JMX name of this consumer's counters, when registered. */
    public Optional<ObjectName> mbeanName() {
        DecisionMBean registered = mbean;
        return registered == null ? Optional.empty() : Optional.of(registered.name());
    }

    /** The last rebalance this consumer led: by whom, why, how long it took. */
    public Optional<Decision> lastDecision() {
        return Optional.ofNullable(counters.last());
    }

    /** The leader's note on this consumer's current assignment. */
    public Optional<AssignmentNote> assignedBy() {
        return Optional.ofNullable(assignedBy);
    }

    /** What this consumer sends the leader at the next rebalance. */
    public SubscriptionUserData subscriptionState() {
        return state;
    }
}
