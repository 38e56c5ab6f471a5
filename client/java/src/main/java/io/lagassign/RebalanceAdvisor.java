package io.lagassign;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.common.errors.InvalidGroupIdException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Acts on the sidecar's rebalance advice from the application's poll loop, in one line placed
 * last, after the batch is processed and committed:
 *
 * <pre>{@code
 * RebalanceAdvisor advisor = RebalanceAdvisor.forConsumer(consumerConfigs);
 * while (running) {
 *     ConsumerRecords<K, V> records = consumer.poll(Duration.ofMillis(500));
 *     process(records);
 *     advisor.commitSync(consumer);        // or consumer.commitSync() (eager assignors)
 *     advisor.maybeRebalance(consumer);    // last: the rebalance runs in the next poll
 * }
 * }</pre>
 *
 * <p>{@code enforceRebalance} only marks the consumer: the rebalance itself runs in the next
 * {@code poll}. Asked for last in the loop, after the commit, nothing of the application runs
 * between the two, so the batch is committed in the generation it was read in. On the cooperative
 * protocol ({@link CooperativeLagAssignor}) the consumer keeps returning records of the
 * partitions it keeps while the group rebalances, and Kafka refuses {@code commitSync} until the
 * rebalance is over ({@code RebalanceInProgressException}); {@link #commitSync} then leaves the
 * offsets to the first commit after the rebalance instead of throwing.
 *
 * <p>{@link #maybeRebalance} never blocks: on the member that led the group's current generation
 * (its {@link LagAssignor} ran {@code assign()}), it starts at most one asynchronous
 * {@code GET /groups/{group}/advice} every {@code every} (default 5 s) and, when the last answer
 * for this generation says {@code advised}, calls {@code consumer.enforceRebalance(reason)} once,
 * with the sidecar's reason in the log, provided the advice weighed the assignment this member made
 * ({@code assignment_digest}, see {@link AssignmentDigest}): advice computed before the last
 * rebalance is never acted on. Every other member does nothing and sends nothing. When
 * the sidecar cannot be reached or answers wrongly, it does nothing and logs one WARNING until the
 * sidecar answers again. The sidecar's own hold time and cooldown prevent rebalance storms; the
 * advisor adds that it forces at most one rebalance per generation.
 *
 * <p>Call it from the thread that polls (the consumer is not thread-safe). Classic groups only:
 * a group on the {@code consumer} protocol has no assignor in the client, so no member leads.
 */
public final class RebalanceAdvisor {
    public static final Duration DEFAULT_EVERY = Duration.ofSeconds(5);
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);

    private static final Logger LOG = LoggerFactory.getLogger(RebalanceAdvisor.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One answer of the sidecar, for the generation the member was in when it asked, with the
     * digest of the assignment the sidecar weighed ({@code assignment_digest}, or null).
     */
    private record Seen(boolean advised, String reason, int generation, String digest) {
    }

    private final String groupId;
    private final URI adviceUri;
    private final String token;
    private final long everyNanos;
    private final HttpClient client;
    private final AtomicReference<Seen> latest = new AtomicReference<>();
    private final AtomicBoolean warned = new AtomicBoolean();
    private final AtomicBoolean inFlight = new AtomicBoolean();
    private volatile long requests;
    private volatile long warnings;
    private long deferredCommits;
    private long nextCheck = Long.MIN_VALUE;
    private int enforcedGeneration = -1;
    private boolean started;

    /**
     * @param sidecar the sidecar's base URL ({@code lagassign.url})
     * @param groupId the consumer's {@code group.id}
     * @param token   the sidecar's bearer token, or null
     * @param every   the least time between two requests
     */
    public RebalanceAdvisor(URI sidecar, String groupId, String token, Duration every) {
        this.groupId = Objects.requireNonNull(groupId, "groupId");
        if (groupId.isEmpty()) {
            throw new IllegalArgumentException("groupId must not be empty");
        }
        if (every.isNegative() || every.isZero()) {
            throw new IllegalArgumentException("every must be positive, was " + every);
        }
        String base = Objects.requireNonNull(sidecar, "sidecar").toString().replaceAll("/+$", "");
        String group = URLEncoder.encode(groupId, StandardCharsets.UTF_8).replace("+", "%20");
        this.adviceUri = URI.create(base + "/groups/" + group + "/advice");
        this.token = token;
        this.everyNanos = every.toNanos();
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(REQUEST_TIMEOUT)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    /** The advisor of the consumer made from {@code configs}: its {@code lagassign.url}, {@code group.id}, token. */
    public static RebalanceAdvisor forConsumer(Map<String, ?> configs) {
        Object url = configs.get(LagAssignor.URL_CONFIG);
        Object group = configs.get(ConsumerConfig.GROUP_ID_CONFIG);
        if (url == null || group == null) {
            throw new IllegalArgumentException("the consumer's configs need " + LagAssignor.URL_CONFIG + " and "
                    + ConsumerConfig.GROUP_ID_CONFIG);
        }
        Object token = configs.get(LagAssignor.TOKEN_CONFIG);
        return new RebalanceAdvisor(URI.create(url.toString()), group.toString(),
                token == null ? null : token.toString(), DEFAULT_EVERY);
    }

    /**
     * Forces a rebalance when the sidecar advises one and this member led the current generation;
     * otherwise at most starts a check in the background. Never blocks, never throws for the sidecar.
     *
     * @return true when it called {@code enforceRebalance}
     */
    public boolean maybeRebalance(Consumer<?, ?> consumer) {
        ConsumerGroupMetadata group;
        try {
            group = consumer.groupMetadata();
        } catch (InvalidGroupIdException e) {
            return false;
        }
        int generation = group.generationId();
        if (generation < 0 || !LeaderRecord.isLeader(group.memberId(), generation)) {
            return false;
        }
        if (generation == enforcedGeneration) {
            return false;
        }
        Seen seen = latest.get();
        String made = LeaderRecord.digest(group.memberId(), generation);
        if (seen != null && seen.advised() && seen.generation() == generation && made != null
                && made.equals(seen.digest())) {
            enforcedGeneration = generation;
            latest.set(null);
            LOG.info("lagassign: group {} generation {}: the sidecar advises a rebalance, enforcing it: {}",
                    groupId, generation, seen.reason());
            consumer.enforceRebalance("lagassign advice: " + seen.reason());
            return true;
        }
        long now = System.nanoTime();
        if ((!started || now - nextCheck >= 0) && inFlight.compareAndSet(false, true)) {
            started = true;
            nextCheck = now + everyNanos;
            check(generation);
        }
        return false;
    }

    /**
     * Commits what the consumer has returned so far, as {@code consumer.commitSync()} does; during
     * a rebalance, when Kafka refuses the commit ({@code RebalanceInProgressException}: on the
     * cooperative protocol the consumer returns records of the partitions it keeps while the group
     * rebalances), it leaves them to the first commit after the rebalance and returns false. That
     * commit covers them: the consumer's positions only move forward. Partitions the rebalance
     * takes away are the application's {@code onPartitionsRevoked}'s to commit, as for any
     * rebalance. Other commit errors ({@code CommitFailedException}: the member left the group)
     * are thrown as {@code commitSync} throws them.
     *
     * @return true when committed, false when left to the next commit
     */
    public boolean commitSync(Consumer<?, ?> consumer) {
        try {
            consumer.commitSync();
            return true;
        } catch (RebalanceInProgressException e) {
            deferredCommits++;
            LOG.debug("lagassign: group {}: commit left to the first one after the rebalance in progress",
                    groupId);
            return false;
        }
    }

    /** Commits {@link #commitSync} left to the next one, because a rebalance was in progress. */
    public long deferredCommits() {
        return deferredCommits;
    }

    private void check(int generation) {
        HttpRequest.Builder request = HttpRequest.newBuilder(adviceUri).timeout(REQUEST_TIMEOUT).GET()
                .header("Accept", "application/json");
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        requests++;
        CompletableFuture<HttpResponse<byte[]>> sent;
        try {
            sent = client.sendAsync(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IllegalArgumentException e) {
            inFlight.set(false);
            unreachable(e.getMessage());
            return;
        }
        sent.whenComplete((response, error) -> {
            try {
                if (error != null) {
                    unreachable(describe(error));
                } else if (response.statusCode() != 200) {
                    unreachable("status " + response.statusCode());
                } else {
                    read(response.body(), generation);
                }
            } finally {
                inFlight.set(false);
            }
        });
    }

    private void read(byte[] body, int generation) {
        JsonNode advice;
        try {
            advice = JSON.readTree(body);
        } catch (IOException e) {
            unreachable("malformed JSON");
            return;
        }
        JsonNode advised = advice == null ? null : advice.get("advised");
        if (advised == null || !advised.isBoolean()) {
            unreachable("an answer without \"advised\"");
            return;
        }
        if (warned.compareAndSet(true, false)) {
            LOG.info("lagassign: group {}: the sidecar answers the advice again", groupId);
        }
        String reason = advice.path("reason").asText("");
        JsonNode digest = advice.path("assignment_digest");
        latest.set(new Seen(advised.booleanValue(), reason, generation,
                digest.isTextual() ? digest.textValue() : null));
    }

    private void unreachable(String why) {
        latest.set(null);
        if (warned.compareAndSet(false, true)) {
            warnings++;
            LOG.warn("lagassign: group {}: cannot read the rebalance advice at {} ({}); no rebalance is forced "
                    + "until it answers", groupId, adviceUri, why);
        }
    }

    private static String describe(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        String message = cause.getMessage();
        return cause.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    /** Requests sent so far. */
    long requests() {
        return requests;
    }

    /** WARNING lines logged so far (one per stretch of unreachability). */
    long warnings() {
        return warnings;
    }

    URI adviceUri() {
        return adviceUri;
    }
}
