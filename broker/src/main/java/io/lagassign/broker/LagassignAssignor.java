package io.lagassign.broker;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignorException;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
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
 * other group of the same {@code __consumer_offsets} partitions, whenever a group's epoch moved
 * (at most once per {@code group.consumer.assignment.interval.ms}). So the sidecar call is bounded
 * by {@code lagassign.timeout.ms} (default 50 ms) and, after {@code lagassign.breaker.failures}
 * consecutive failures, not made at all for {@code lagassign.breaker.cooloff.ms}.
 *
 * <p>The answer is checked against the {@link GroupSpec} (every member present, every partition of
 * every subscribed topic exactly once, only to subscribers). On a timeout, a connection error, a
 * status other than 200, a malformed or invalid answer, or an unknown group (404, 409) the group
 * gets the fallback assignor's answer unchanged, as if lagassign were not installed. Nothing of
 * lagassign's own ever throws into the coordinator; a {@link PartitionAssignorException} of the
 * fallback assignor itself passes through, exactly as it would without lagassign.
 */
public class LagassignAssignor implements ConsumerGroupPartitionAssignor, Configurable {
    public static final String NAME = "lagassign";

    private static final Logger LOG = LoggerFactory.getLogger(LagassignAssignor.class);

    private final LongSupplier nanoTime;
    private final Map<String, AtomicLong> fallbacks = new ConcurrentHashMap<>();
    private final AtomicLong answers = new AtomicLong();

    private volatile Wiring wiring;
    private volatile CompletableFuture<?> warmUp = CompletableFuture.completedFuture(null);

    /** What configure() builds from the broker's properties. */
    private record Wiring(LagassignConfig config, SidecarClient sidecar, CircuitBreaker breaker,
            ConsumerGroupPartitionAssignor fallback) {
    }

    public LagassignAssignor() {
        this(System::nanoTime);
    }

    /** With a clock of its own for the circuit breaker's cool-off (tests). */
    LagassignAssignor(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * Reads the {@code lagassign.*} broker properties.
     *
     * @throws org.apache.kafka.common.config.ConfigException naming the property, when one is
     *     missing or wrong: the broker does not start.
     */
    @Override
    public void configure(Map<String, ?> configs) {
        LagassignConfig config = new LagassignConfig(configs);
        SidecarClient sidecar = new SidecarClient(config.url(), config.timeout(), config.token());
        CircuitBreaker breaker = new CircuitBreaker(config.breakerFailures(), config.breakerCoolOff(), nanoTime);
        ConsumerGroupPartitionAssignor fallback =
                "range".equals(config.fallback()) ? new RangeAssignor() : new UniformAssignor();
        this.wiring = new Wiring(config, sidecar, breaker, fallback);
        this.warmUp = sidecar.warmUp();
        LOG.info("lagassign: assignor '{}' asks {} within {} ms, falls back to '{}'; breaker opens after {} "
                + "failures for {} ms", NAME, sidecar.assignUri(), config.timeout().toMillis(), fallback.name(),
                config.breakerFailures(), config.breakerCoolOff().toMillis());
    }

    @Override
    public GroupAssignment assign(GroupSpec groupSpec, SubscribedTopicDescriber describer)
            throws PartitionAssignorException {
        Wiring wired = wiring;
        if (wired == null) {
            LOG.error("lagassign: configure() was not called; using Kafka's uniform assignor");
            return new UniformAssignor().assign(groupSpec, describer);
        }
        long started = System.nanoTime();
        try {
            if (!wired.breaker().allowRequest()) {
                throw new FallbackException(Fault.BREAKER_OPEN, "the sidecar failed repeatedly; not asking it "
                        + "until the cool-off has passed");
            }
            GroupView view;
            try {
                view = GroupView.of(groupSpec, describer);
            } catch (FallbackException e) {
                wired.breaker().release();
                throw e;
            }
            if (view.isEmpty()) {
                wired.breaker().release();
                return wired.fallback().assign(groupSpec, describer);
            }
            long deadline = started + wired.sidecar().timeout().toNanos();
            byte[] answer = wired.sidecar().postAssign(AssignRequest.encode(view, deadline), deadline);
            AssignAnswer.Checked checked = AssignAnswer.read(answer, view);
            wired.breaker().onSuccess();
            answers.incrementAndGet();
            LOG.debug("lagassign: group {} ({} members, {} partitions) assigned by the sidecar in {} us",
                    checked.groupId(), groupSpec.memberIds().size(), view.partitionCount(),
                    (System.nanoTime() - started) / 1000);
            return checked.assignment();
        } catch (FallbackException e) {
            noteFallback(wired, e.fault(), e.getMessage(), groupSpec);
        } catch (RuntimeException e) {
            // Deliberately broad: a defect in lagassign must cost the group lagassign, never the
            // coordinator its thread. Kafka's own assignor answers instead.
            noteFallback(wired, null, e.toString(), groupSpec);
            LOG.error("lagassign: unexpected error; the group gets '{}'", wired.fallback().name(), e);
        }
        return wired.fallback().assign(groupSpec, describer);
    }

    private void noteFallback(Wiring wired, Fault fault, String message, GroupSpec groupSpec) {
        String label = fault == null ? "error" : fault.label();
        fallbacks.computeIfAbsent(label, key -> new AtomicLong()).incrementAndGet();
        if (fault == Fault.UNKNOWN_GROUP) {
            wired.breaker().onSuccess();
        } else if (fault == null || fault.isFailure()) {
            if (wired.breaker().onFailure()) {
                LOG.warn("lagassign: the sidecar failed {} times in a row; groups get '{}' without asking it for {} ms",
                        wired.config().breakerFailures(), wired.fallback().name(),
                        wired.config().breakerCoolOff().toMillis());
            }
        }
        if (fault == Fault.BREAKER_OPEN) {
            LOG.debug("lagassign: a group of {} members gets '{}' ({}): {}", groupSpec.memberIds().size(),
                    wired.fallback().name(), label, message);
        } else if (fault == Fault.UNKNOWN_GROUP) {
            LOG.info("lagassign: a group of {} members gets '{}' ({}): {}", groupSpec.memberIds().size(),
                    wired.fallback().name(), label, message);
        } else {
            LOG.warn("lagassign: a group of {} members gets '{}' ({}): {}", groupSpec.memberIds().size(),
                    wired.fallback().name(), label, message);
        }
    }

    /** Assignments answered by the sidecar. */
    public long answers() {
        return answers.get();
    }

    /** Assignments that got the fallback assignor's answer, by reason label. */
    public Map<String, Long> fallbackCounts() {
        Map<String, Long> out = new TreeMap<>();
        fallbacks.forEach((reason, count) -> out.put(reason, count.get()));
        return out;
    }

    /** Waits (bounded) for the background warm-up configure() started; for tests and benchmarks. */
    void awaitWarmUp() {
        try {
            warmUp.get(5, java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            LOG.debug("lagassign: warm-up did not complete: {}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** True while the circuit breaker keeps the sidecar from being asked. */
    public boolean breakerOpen() {
        Wiring wired = wiring;
        return wired != null && wired.breaker().isOpen();
    }
}
