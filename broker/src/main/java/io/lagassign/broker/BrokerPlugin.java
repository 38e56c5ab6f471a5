package io.lagassign.broker;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.function.LongSupplier;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything of the plugin that exists once per broker: the settings in force, the one HTTP client,
 * the threads that make the calls, the circuit breaker, the counters and their JMX MBeans.
 *
 * <p>Kafka builds and configures a new instance of the assignor every time it builds a broker
 * configuration (eight or nine times while a broker starts, and again for every dynamic change);
 * the coordinator keeps using the instances it got at start-up. Every instance shares this one
 * state, and each configuration applied (not merely validated) replaces the settings in force: that
 * is how a {@code kafka-configs --alter} of a {@code lagassign.*} property reaches the running
 * assignor (see {@link LagassignAssignor#configure}).
 */
final class BrokerPlugin implements BrokerPluginMBean {
    static final String MBEAN = "io.lagassign:type=BrokerPlugin";
    static final String FALLBACK_MBEAN = "io.lagassign:type=BrokerPluginFallbacks,reason=";
    /** The reason an unexpected error in the plugin is counted under. */
    static final String ERROR = "error";
    /** How long the start-up check and the breaker's check wait for the sidecar. */
    static final Duration CHECK_TIMEOUT = Duration.ofSeconds(2);
    /** Threads of the plugin's own: calls in flight, across every coordinator thread. */
    static final int MAX_CALL_THREADS = 16;

    private static final Logger LOG = LoggerFactory.getLogger(LagassignAssignor.class);

    private static final class Broker {
        static final BrokerPlugin STATE = new BrokerPlugin(System::nanoTime, true);
    }

    private final LongSupplier nanoTime;
    /** The broker's one state: registers the MBeans and warms the plugin's code up at start. */
    private final boolean broker;
    private final SidecarClient client = new SidecarClient();
    private final ThreadPoolExecutor calls;
    private final CircuitBreaker breaker;
    private final Map<String, AtomicLong> fallbacks = new ConcurrentHashMap<>();
    private final AtomicLong callCount = new AtomicLong();
    private final AtomicLong answered = new AtomicLong();
    private final DoubleAdder callMsTotal = new DoubleAdder();
    private final AtomicLong callNanosMax = new AtomicLong();
    private final AtomicLong configured = new AtomicLong();
    private final AtomicLong fallbacksWhileOpen = new AtomicLong();

    private volatile Settings settings;
    private volatile String sidecarCheck = "not checked yet";
    private volatile CompletableFuture<?> lastCheck = CompletableFuture.completedFuture(null);

    /** The broker's one state. */
    static BrokerPlugin forBroker() {
        return Broker.STATE;
    }

    /**
     * A state of its own (tests, benchmarks); {@code broker}: the broker's one state, which
     * registers the MBeans and warms the plugin's code up when its first settings are applied.
     */
    BrokerPlugin(LongSupplier nanoTime, boolean broker) {
        this.nanoTime = nanoTime;
        this.broker = broker;
        this.breaker = new CircuitBreaker(LagassignConfig.DEFAULT_BREAKER_FAILURES,
                Duration.ofMillis(LagassignConfig.DEFAULT_BREAKER_COOLOFF_MS), nanoTime);
        AtomicInteger threads = new AtomicInteger();
        this.calls = new ThreadPoolExecutor(4, MAX_CALL_THREADS, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
                task -> {
                    Thread thread = new Thread(task, "lagassign-call-" + threads.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        for (Fault fault : Fault.values()) {
            fallbacks.put(fault.label(), new AtomicLong());
        }
        fallbacks.put(ERROR, new AtomicLong());
        if (broker) {
            register();
        }
    }

    private void register() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try {
            ObjectName name = new ObjectName(MBEAN);
            if (!server.isRegistered(name)) {
                server.registerMBean(new StandardMBean(this, BrokerPluginMBean.class), name);
            }
            for (Map.Entry<String, AtomicLong> reason : fallbacks.entrySet()) {
                ObjectName byReason = new ObjectName(FALLBACK_MBEAN + reason.getKey());
                AtomicLong count = reason.getValue();
                if (!server.isRegistered(byReason)) {
                    FallbackCountMBean bean = count::get;
                    server.registerMBean(new StandardMBean(bean, FallbackCountMBean.class), byReason);
                }
            }
        } catch (JMException e) {
            LOG.warn("lagassign: the JMX MBeans could not be registered: {}", e.toString());
        }
    }

    Settings settings() {
        return settings;
    }

    CircuitBreaker breaker() {
        return breaker;
    }

    SidecarClient client() {
        return client;
    }

    void countConfigure() {
        configured.incrementAndGet();
    }

    /**
     * Puts {@code next} in force. Logs the settings the first time and what changed afterwards;
     * checks the sidecar (URL and token) in the background when they are new.
     */
    synchronized void apply(Settings next) {
        Settings before = settings;
        if (next.equals(before)) {
            return;
        }
        breaker.reconfigure(next.breakerFailures(), next.breakerCoolOff());
        settings = next;
        if (before == null) {
            LOG.info("lagassign: assignor '{}' asks {} within {} ms, falls back to '{}'; breaker opens after {} "
                    + "failures for {} ms", LagassignAssignor.NAME, next.assignUri(), next.timeout().toMillis(),
                    next.fallbackName(), next.breakerFailures(), next.breakerCoolOff().toMillis());
        } else {
            LOG.info("lagassign: broker configuration changed, now in force: {}", String.join(", ",
                    next.changesSince(before)));
        }
        if (next.sidecarChanged(before)) {
            lastCheck = checkAtStart(next);
        }
        if (before == null && broker) {
            warmUp(next);
        }
    }

    /** {@link WarmUp} on a thread of its own; an INFO says what it took, a WARN if it failed. */
    private static void warmUp(Settings at) {
        Thread thread = new Thread(() -> {
            try {
                WarmUp.Rounds rounds = WarmUp.run(at.fallback(), WarmUp.ROUNDS);
                LOG.info("lagassign: the plugin's code warmed up on a made-up group of {} members and {} partitions "
                        + "(every step of a call but the HTTP exchange, fallback '{}'): {} rounds in {} ms, the "
                        + "first {} ms, the last {} ms", WarmUp.MEMBERS, WarmUp.TOPICS * WarmUp.PARTITIONS_PER_TOPIC,
                        at.fallbackName(), rounds.nanos().length, rounds.totalNanos() / 1_000_000,
                        String.format(Locale.ROOT, "%.1f", rounds.firstNanos() / 1e6),
                        String.format(Locale.ROOT, "%.1f", rounds.lastNanos() / 1e6));
            } catch (RuntimeException e) {
                LOG.warn("lagassign: the warm-up of the plugin's code failed ({}); the first calls after this start "
                        + "run on a cold JVM", e.toString());
            }
        }, "lagassign-warm-up");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Checks that the sidecar answers at {@code lagassign.url} and takes {@code lagassign.token}, in
     * the background; a WARN says what is wrong, an INFO that all is well. Also opens the first
     * connection, so the first rebalance does not spend its deadline on it.
     */
    private CompletableFuture<?> checkAtStart(Settings at) {
        return client.get(at.livezUri(), null, CHECK_TIMEOUT).handle((livez, error) -> {
            if (error != null) {
                return problem(at, LagassignConfig.URL_CONFIG + "=" + at.base() + ": no answer from " + at.livezUri()
                        + " (" + rootCause(error) + "); until the sidecar answers there, groups on '"
                        + LagassignAssignor.NAME + "' get '" + at.fallbackName() + "'");
            }
            if (livez != 200) {
                return problem(at, LagassignConfig.URL_CONFIG + "=" + at.base() + ": " + at.livezUri() + " answered HTTP "
                        + livez + ", not 200: is this the lagassign sidecar's base URL?");
            }
            return null;
        }).thenCompose(problem -> problem != null ? CompletableFuture.completedFuture(null)
                : client.get(java.net.URI.create(at.base() + SidecarClient.TOKEN_CHECK_PATH), at.token(),
                        CHECK_TIMEOUT).handle((answer, error) -> tokenVerdict(at, answer, error)));
    }

    private Object tokenVerdict(Settings at, Integer status, Throwable error) {
        if (error != null) {
            return problem(at, "the token check at " + at.base() + " got no answer (" + rootCause(error) + ")");
        }
        if (status == 401 || status == 403) {
            return problem(at, at.token() == null
                    ? "the sidecar at " + at.base() + " requires a token (HTTP " + status + "): set "
                            + LagassignConfig.TOKEN_CONFIG + " to its LAGASSIGN_TOKEN; until then every call fails"
                    : LagassignConfig.TOKEN_CONFIG + " is refused by the sidecar at " + at.base() + " (HTTP "
                            + status + "): it must equal the sidecar's LAGASSIGN_TOKEN; until then "
                            + "every call fails");
        }
        sidecarCheck = "ok";
        LOG.info("lagassign: the sidecar at {} answers and {}", at.base(),
                at.token() == null ? "asks for no token" : "accepts the token");
        return null;
    }

    private Object problem(Settings at, String message) {
        sidecarCheck = message;
        LOG.warn("lagassign: {}", message);
        return message;
    }

    private static String rootCause(Throwable error) {
        Throwable cause = error;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause.toString();
    }

    /**
     * The breaker's cool-off is over: {@code GET /livez} off the coordinator's thread. A 200 lets
     * the next call probe over the connection it opened; anything else opens the breaker again.
     */
    void checkForBreaker(Settings at) {
        lastCheck = client.get(at.livezUri(), null, CHECK_TIMEOUT).handle((livez, error) -> {
            boolean healthy = error == null && livez == 200;
            breaker.onCheck(healthy);
            if (healthy) {
                LOG.info("lagassign: the sidecar answers its health check again; the next group asks it");
            } else {
                LOG.info("lagassign: the sidecar still fails its health check ({}); groups get '{}' without asking "
                        + "it for another {} ms", error != null ? rootCause(error) : "HTTP " + livez,
                        at.fallbackName(), at.breakerCoolOff().toMillis());
            }
            return healthy;
        });
    }

    /** Runs one call on the plugin's own threads. */
    <T> Future<T> submit(Callable<T> call) throws FallbackException {
        try {
            return calls.submit(call);
        } catch (RejectedExecutionException e) {
            throw new FallbackException(Fault.BUSY, "all " + MAX_CALL_THREADS + " of the plugin's call threads are busy");
        }
    }

    void recordCall(long nanos, boolean wasAnswered) {
        callCount.incrementAndGet();
        if (wasAnswered) {
            answered.incrementAndGet();
        }
        callMsTotal.add(nanos / 1e6);
        callNanosMax.accumulateAndGet(nanos, Math::max);
    }

    void recordFallback(String reason) {
        fallbacks.computeIfAbsent(reason, key -> new AtomicLong()).incrementAndGet();
        if (Fault.BREAKER_OPEN.label().equals(reason)) {
            fallbacksWhileOpen.incrementAndGet();
        }
    }

    /** Fallbacks while the breaker was open since it last opened; reset by the caller when it closes. */
    long takeFallbacksWhileOpen() {
        return fallbacksWhileOpen.getAndSet(0);
    }

    /** Waits (bounded) for the last background check; for tests and benchmarks. */
    void awaitCheck() {
        try {
            lastCheck.get(5, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            LOG.debug("lagassign: the check did not complete: {}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    long answers() {
        return answered.get();
    }

    Map<String, Long> fallbackCounts() {
        Map<String, Long> out = new TreeMap<>();
        fallbacks.forEach((reason, count) -> {
            if (count.get() > 0) {
                out.put(reason, count.get());
            }
        });
        return out;
    }

    // --- BrokerPluginMBean ---

    @Override
    public long getCalls() {
        return callCount.get();
    }

    @Override
    public long getAnswered() {
        return answered.get();
    }

    @Override
    public long getFallbacks() {
        return fallbacks.values().stream().mapToLong(AtomicLong::get).sum();
    }

    @Override
    public double getCallTimeMsTotal() {
        return callMsTotal.sum();
    }

    @Override
    public double getCallTimeMsMax() {
        return callNanosMax.get() / 1e6;
    }

    @Override
    public int getBreakerOpen() {
        return breaker.isOpen() ? 1 : 0;
    }

    @Override
    public String getBreakerState() {
        return breaker.state();
    }

    @Override
    public long getBreakerOpenedTotal() {
        return breaker.timesOpened();
    }

    @Override
    public long getBreakerClosedTotal() {
        return breaker.timesClosed();
    }

    @Override
    public int getTimeoutMs() {
        Settings now = settings;
        return now == null ? 0 : (int) now.timeout().toMillis();
    }

    @Override
    public int getBreakerFailures() {
        Settings now = settings;
        return now == null ? 0 : now.breakerFailures();
    }

    @Override
    public long getBreakerCoolOffMs() {
        Settings now = settings;
        return now == null ? 0 : now.breakerCoolOff().toMillis();
    }

    @Override
    public String getUrl() {
        Settings now = settings;
        return now == null ? "" : now.base().toString();
    }

    @Override
    public String getFallback() {
        Settings now = settings;
        return now == null ? "" : now.fallbackName();
    }

    @Override
    public long getConfigured() {
        return configured.get();
    }

    @Override
    public String getSidecarCheck() {
        return sidecarCheck;
    }

    long nanoTime() {
        return nanoTime.getAsLong();
    }
}
