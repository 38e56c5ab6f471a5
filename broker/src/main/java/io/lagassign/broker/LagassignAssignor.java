package io.lagassign.broker;

import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.apache.kafka.common.Reconfigurable;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignorException;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server-side assignor for consumer-protocol (KIP-848) groups that asks the lagassign sidecar for
 * a lag-balanced assignment and falls back to Kafka's own {@code uniform} (or {@code range})
 * assignor whenever lagassign cannot help.
 *
 * <pre>
 * # broker
 * group.consumer.assignors=uniform,range,io.lagassign.broker.LagassignAssignor
 * lagassign.url=http://lagassign.kafka:8321
 * lagassign.token=…
 * # consumer
 * group.protocol=consumer
 * group.remote.assignor=lagassign
 * </pre>
 *
 * <p>The coordinator calls {@link #assign} on its own event-processor thread, which serves every
 * other group of the same {@code __consumer_offsets} partitions, whenever a group's epoch moved.
 * So the whole call (reading the spec, writing the request, the HTTP exchange, reading and checking
 * the answer) runs on the plugin's own thread, and the coordinator's thread waits for it until
 * {@code lagassign.timeout.ms} (default 50 ms) and no longer: past the deadline it abandons the call
 * and returns the fallback's answer at once. After {@code lagassign.breaker.failures} consecutive
 * failures the sidecar is not asked at all for {@code lagassign.breaker.cooloff.ms}.
 *
 * <p>The answer is checked against the {@link GroupSpec} (every member present, every partition of
 * every subscribed topic exactly once, only to subscribers). On a timeout, a connection error, a
 * status other than 200, a malformed or invalid answer, or an unknown group (404, 409) the group
 * gets the fallback assignor's answer unchanged, as if lagassign were not installed. Nothing of
 * lagassign's own ever throws into the coordinator; a {@link PartitionAssignorException} of the
 * fallback assignor itself passes through, exactly as it would without lagassign.
 *
 * <p>Every instance on a broker shares one {@link BrokerPlugin}: one HTTP client, one breaker, one
 * set of counters (JMX {@code io.lagassign:type=BrokerPlugin}), one set of settings in force.
 */
public class LagassignAssignor implements ConsumerGroupPartitionAssignor, Reconfigurable {
    public static final String NAME = "lagassign";

    private static final Logger LOG = LoggerFactory.getLogger(LagassignAssignor.class);

    private final BrokerPlugin plugin;

    /** What one call on the plugin's thread found. */
    private record Outcome(AssignAnswer.Checked checked, boolean empty, int partitions) {
    }

    public LagassignAssignor() {
        this(BrokerPlugin.forBroker());
    }

    /** With a state of its own, and a clock of its own for the circuit breaker's cool-off (tests). */
    LagassignAssignor(LongSupplier nanoTime) {
        this(new BrokerPlugin(nanoTime, false));
    }

    LagassignAssignor(BrokerPlugin plugin) {
        this.plugin = plugin;
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * Reads and checks the {@code lagassign.*} broker properties and puts them in force for every
     * instance on this broker.
     *
     * <p>Kafka 4.3.1 never calls {@link #reconfigure} on an assignor (assignors are not among the
     * broker's registered {@code Reconfigurable}s); instead it builds a new broker configuration,
     * and with it a new instance of every assignor configured with the new values, both to validate
     * a dynamic change ({@code DynamicBrokerConfig.validate}, on the broker that receives an
     * {@code IncrementalAlterConfigs}) and to apply it (on every broker, once the controller has
     * committed it). So this checks the values every time (a wrong value fails the
     * {@code kafka-configs --alter} with this ConfigException's message) and puts them in force
     * unless the call only validates.
     *
     * @throws ConfigException naming the property, when one is missing or wrong: the broker does
     *     not start, or the dynamic change is refused.
     */
    @Override
    public void configure(Map<String, ?> configs) {
        Settings next = Settings.of(new LagassignConfig(configs));
        plugin.countConfigure();
        if (DynamicChange.onlyValidating()) {
            LOG.debug("lagassign: a proposed broker configuration checked: {}", next);
            return;
        }
        plugin.apply(next);
    }

    @Override
    public Set<String> reconfigurableConfigs() {
        return LagassignConfig.CONFIG.names();
    }

    @Override
    public void validateReconfiguration(Map<String, ?> configs) throws ConfigException {
        new LagassignConfig(configs);
    }

    @Override
    public void reconfigure(Map<String, ?> configs) {
        plugin.apply(Settings.of(new LagassignConfig(configs)));
    }

    @Override
    public GroupAssignment assign(GroupSpec groupSpec, SubscribedTopicDescriber describer)
            throws PartitionAssignorException {
        Settings settings = plugin.settings();
        if (settings == null) {
            LOG.error("lagassign: configure() was not called; using Kafka's uniform assignor");
            return new UniformAssignor().assign(groupSpec, describer);
        }
        long started = System.nanoTime();
        boolean[] answered = {false};
        try {
            return assign(settings, groupSpec, describer, started, answered);
        } finally {
            plugin.recordCall(System.nanoTime() - started, answered[0]);
        }
    }

    private GroupAssignment assign(Settings settings, GroupSpec groupSpec, SubscribedTopicDescriber describer,
            long started, boolean[] answered) {
        PreparedFallback fallback = new PreparedFallback(settings.fallback(), groupSpec, describer);
        CircuitBreaker breaker = plugin.breaker();
        try {
            CircuitBreaker.Decision decision = breaker.decide();
            if (decision != CircuitBreaker.Decision.ASK) {
                if (decision == CircuitBreaker.Decision.CHECK) {
                    plugin.checkForBreaker(settings);
                }
                throw new FallbackException(Fault.BREAKER_OPEN, "the sidecar failed repeatedly; not asking it "
                        + "until the cool-off has passed and it answers its health check");
            }
            long deadline = started + settings.timeout().toNanos();
            CallPhases phases = new CallPhases(started);
            Outcome outcome = call(settings, groupSpec, describer, deadline, phases, fallback);
            if (outcome.empty()) {
                breaker.release();
                return fallback.answer();
            }
            AssignAnswer.Checked checked = outcome.checked();
            if (breaker.onSuccess()) {
                noteClosed();
            }
            answered[0] = true;
            LOG.debug("lagassign: group {} ({} members, {} partitions) assigned by the sidecar in {} us ({})",
                    checked.groupId(), groupSpec.memberIds().size(), outcome.partitions(),
                    (System.nanoTime() - started) / 1000, phases);
            return checked.assignment();
        } catch (FallbackException e) {
            return fallen(settings, e.fault(), e.getMessage(), groupSpec, fallback, started);
        } catch (RuntimeException e) {
            // Deliberately broad: a defect in lagassign must cost the group lagassign, never the
            // coordinator its thread. Kafka's own assignor answers instead.
            LOG.error("lagassign: unexpected error; the group gets '{}'", settings.fallbackName(), e);
            return fallen(settings, null, e.toString(), groupSpec, fallback, started);
        }
    }

    /**
     * The fallback assignor's answer (prepared while the sidecar was asked, or computed now), and
     * the fallback noted with when the plugin decided and how long the fallback assignor took. A
     * {@link PartitionAssignorException} of the fallback itself passes through, noted all the same.
     */
    private GroupAssignment fallen(Settings settings, Fault fault, String message, GroupSpec groupSpec,
            PreparedFallback fallback, long started) {
        long decided = System.nanoTime() - started;
        try {
            return fallback.answer();
        } finally {
            noteFallback(settings, fault, message, groupSpec, decided, fallback.tookNanos());
        }
    }

    /**
     * The whole exchange on the plugin's own thread; meanwhile the coordinator's thread prepares
     * the fallback's answer, then waits until the deadline and not a moment longer, and abandons
     * the call (interrupted, its building and reading stop; the exchange ends at its own read
     * timeout, the time that was left to the deadline).
     */
    private Outcome call(Settings settings, GroupSpec spec, SubscribedTopicDescriber describer, long deadline,
            CallPhases phases, PreparedFallback fallback) throws FallbackException {
        // Read here, on the coordinator's thread, and nowhere else: Kafka's spec is not safe to read
        // from two threads at once (its topic-id resolver caches in a plain HashMap), and the
        // fallback reads it below while the plugin's thread works on this copy.
        GroupView view = GroupView.of(spec, describer);
        if (view.isEmpty()) {
            return new Outcome(null, true, 0);
        }
        Future<Outcome> running = plugin.submit(() -> {
            phases.taken();
            byte[] body = AssignRequest.encode(view, deadline);
            phases.built();
            SidecarClient.Answered answer = plugin.client().postAssign(settings, body, deadline);
            phases.answered(answer.serverTiming());
            AssignAnswer.Checked checked = AssignAnswer.read(answer.body(), view, deadline);
            phases.read();
            return new Outcome(checked, false, view.partitionCount());
        });
        fallback.prepare();
        try {
            return running.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            running.cancel(true);
            throw new FallbackException(Fault.TIMEOUT, "no usable answer from " + settings.assignUri() + " within "
                    + settings.timeout().toMillis() + " ms (" + phases.describe() + "); the call was abandoned");
        } catch (InterruptedException e) {
            running.cancel(true);
            Thread.currentThread().interrupt();
            throw new FallbackException(Fault.TIMEOUT, "interrupted while waiting for " + settings.assignUri());
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof FallbackException failed) {
                throw failed;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(cause);
        }
    }

    private void noteClosed() {
        LOG.info("lagassign: the sidecar answers again; the breaker is closed, groups are asked again "
                + "({} got the fallback without asking while it was open)", plugin.takeFallbacksWhileOpen());
    }

    private void noteFallback(Settings settings, Fault fault, String message, GroupSpec groupSpec,
            long decidedNanos, long fallbackNanos) {
        String label = fault == null ? BrokerPlugin.ERROR : fault.label();
        long afterMs = decidedNanos / 1_000_000;
        String fallbackMs = String.format(Locale.ROOT, "%.1f", fallbackNanos / 1e6);
        plugin.recordFallback(label);
        CircuitBreaker breaker = plugin.breaker();
        if (fault == Fault.UNKNOWN_GROUP) {
            if (breaker.onSuccess()) {
                noteClosed();
            }
        } else if (fault == null || fault.isFailure()) {
            if (breaker.onFailure()) {
                LOG.warn("lagassign: the breaker is open: the sidecar failed {} times in a row (last: {}); groups get "
                        + "'{}' without asking it for {} ms, then a health check decides", breaker.threshold(), label,
                        settings.fallbackName(), settings.breakerCoolOff().toMillis());
            }
        } else if (fault == Fault.METADATA || fault == Fault.BUSY) {
            breaker.release();
        }
        if (fault == Fault.BREAKER_OPEN) {
            LOG.debug("lagassign: a group of {} members gets '{}' ({}): {}", groupSpec.memberIds().size(),
                    settings.fallbackName(), label, message);
        } else if (fault == Fault.UNKNOWN_GROUP) {
            LOG.info("lagassign: a group of {} members gets '{}' ({}) after {} ms (the fallback's answer: {} ms): {}",
                    groupSpec.memberIds().size(), settings.fallbackName(), label, afterMs, fallbackMs, message);
        } else {
            LOG.warn("lagassign: a group of {} members gets '{}' ({}) after {} ms (the fallback's answer: {} ms): {}",
                    groupSpec.memberIds().size(), settings.fallbackName(), label, afterMs, fallbackMs, message);
        }
    }

    /** Assignments answered by the sidecar. */
    public long answers() {
        return plugin.answers();
    }

    /** Assignments that got the fallback assignor's answer, by reason label. */
    public Map<String, Long> fallbackCounts() {
        return plugin.fallbackCounts();
    }

    /** Waits (bounded) for the last background check of the sidecar; for tests and benchmarks. */
    void awaitWarmUp() {
        plugin.awaitCheck();
    }

    /** True while the circuit breaker keeps the sidecar from being asked. */
    public boolean breakerOpen() {
        return plugin.breaker().isOpen();
    }

    BrokerPlugin plugin() {
        return plugin;
    }
}
