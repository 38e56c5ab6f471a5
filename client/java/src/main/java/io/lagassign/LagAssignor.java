package io.lagassign;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
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
 * subscribed topic exactly once, only to subscribers, nothing unknown) and uses it. On a timeout,
 * a connection error, a non-200, malformed JSON or an invalid answer it uses Kafka's
 * RangeAssignor instead, logs one WARNING with the reason and counts it; it never throws into the
 * consumer. Owned partitions, their generation, {@code group.instance.id} and {@code client.rack}
 * travel in the subscription user data, the same JSON as the Python shim's, so Python and Java
 * consumers can share a group.
 *
 * <p>Eager only: the fallback, RangeAssignor, is an eager assignor, so the shim cannot promise
 * the cooperative protocol's rules.
 */
public class LagAssignor implements ConsumerPartitionAssignor, Configurable {
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
    private final Map<String, AtomicLong> fallbacks = new ConcurrentHashMap<>();
    private final AtomicLong answers = new AtomicLong();
    private volatile Decision lastDecision;

    private LagAssignorConfig config;
    private Sidecar sidecar;

    private volatile SubscriptionUserData state = SubscriptionUserData.NOTHING_KNOWN;
    private volatile AssignmentNote assignedBy;

    @Override
    public void configure(Map<String, ?> configs) {
        LagAssignorConfig parsed = new LagAssignorConfig(configs);
        this.config = parsed;
        this.sidecar = new Sidecar(parsed.url(), parsed.timeout(), parsed.token());
        this.state = new SubscriptionUserData(Map.of(), null, parsed.instanceId(), parsed.rack());
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
        long started = System.nanoTime();
        try {
            GroupView view = GroupView.of(config.groupId(), metadata, groupSubscription.groupSubscription());
            byte[] answerBody = sidecar.postAssign(view.requestBody(config.strategy()),
                    started + sidecar.timeout().toNanos());
            AnswerReader.Answer answer = AnswerReader.read(answerBody, view);
            Decision decision = Decision.sidecar(answer.strategy(), Duration.ofNanos(System.nanoTime() - started));
            answers.incrementAndGet();
            lastDecision = decision;
            return noted(answer.assignment(), decision);
        } catch (FallbackException e) {
            Decision decision = Decision.range(e, Duration.ofNanos(System.nanoTime() - started));
            fallbacks.computeIfAbsent(e.reason().label(), reason -> new AtomicLong()).incrementAndGet();
            lastDecision = decision;
            LOG.warn("lagassign: group {} falls back to the range assignor ({}): {}",
                    config.groupId(), e.reason().label(), e.getMessage());
            Map<String, List<TopicPartition>> ranged = new TreeMap<>();
            fallback.assign(metadata, groupSubscription).groupAssignment()
                    .forEach((memberId, given) -> ranged.put(memberId, given.partitions()));
            return noted(ranged, decision);
        }
    }

    private static GroupAssignment noted(Map<String, List<TopicPartition>> assignment, Decision decision) {
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
    }

    /** Rebalances this consumer led on the range fallback, by reason label. */
    public Map<String, Long> fallbackCounts() {
        Map<String, Long> out = new TreeMap<>();
        fallbacks.forEach((reason, count) -> out.put(reason, count.get()));
        return out;
    }

    /** Rebalances this consumer led on the sidecar's answer. */
    public long answers() {
        return answers.get();
    }

    /** The last rebalance this consumer led: by whom, why, how long it took. */
    public Optional<Decision> lastDecision() {
        return Optional.ofNullable(lastDecision);
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
