package io.lagassign.broker;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The {@code lagassign.*} broker properties, parsed and checked once, when the broker configures
 * the assignor at start-up: a wrong value stops the broker with a {@link ConfigException} that
 * names the property.
 */
public final class LagassignConfig extends AbstractConfig {
    public static final String URL_CONFIG = "lagassign.url";
    public static final String URL_DOC = "Base URL of the lagassign sidecar, e.g. http://lagassign.kafka:8321; "
            + "the assignor sends POST <url>/assign.";

    public static final String TIMEOUT_MS_CONFIG = "lagassign.timeout.ms";
    public static final String TIMEOUT_MS_DOC = "Hard deadline of one sidecar call in milliseconds. assign() runs on "
            + "the group coordinator's event-processor thread, which serves other groups too, so keep it short; past "
            + "it the group gets the fallback assignor's answer.";
    public static final int DEFAULT_TIMEOUT_MS = 50;
    /** The longest deadline allowed: a coordinator thread must never wait on HTTP for seconds. */
    public static final int MAX_TIMEOUT_MS = 1000;

    public static final String TOKEN_CONFIG = "lagassign.token";
    public static final String TOKEN_DOC = "Bearer token the sidecar requires (its LAGASSIGN_TOKEN).";

    public static final String FALLBACK_CONFIG = "lagassign.fallback";
    public static final String FALLBACK_DOC = "Kafka's own assignor used whenever lagassign cannot help: "
            + "uniform or range.";
    public static final String DEFAULT_FALLBACK = "uniform";
    public static final List<String> FALLBACKS = List.of("uniform", "range");

    public static final String BREAKER_FAILURES_CONFIG = "lagassign.breaker.failures";
    public static final String BREAKER_FAILURES_DOC = "Consecutive failed sidecar calls (timeout, connection error, "
            + "error status, malformed or invalid answer) after which the assignor stops asking for the cool-off.";
    public static final int DEFAULT_BREAKER_FAILURES = 3;

    public static final String BREAKER_COOLOFF_MS_CONFIG = "lagassign.breaker.cooloff.ms";
    public static final String BREAKER_COOLOFF_MS_DOC = "How long the assignor uses the fallback without asking "
            + "after the breaker opens; then one call probes the sidecar again.";
    public static final int DEFAULT_BREAKER_COOLOFF_MS = 30_000;

    static final ConfigDef CONFIG = new ConfigDef()
            .define(URL_CONFIG, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, LagassignConfig::checkUrl,
                    Importance.HIGH, URL_DOC)
            .define(TIMEOUT_MS_CONFIG, Type.INT, DEFAULT_TIMEOUT_MS, ConfigDef.Range.between(1, MAX_TIMEOUT_MS),
                    Importance.HIGH, TIMEOUT_MS_DOC)
            .define(TOKEN_CONFIG, Type.PASSWORD, null, Importance.MEDIUM, TOKEN_DOC)
            .define(FALLBACK_CONFIG, Type.STRING, DEFAULT_FALLBACK, ConfigDef.ValidString.in("uniform", "range"),
                    Importance.MEDIUM, FALLBACK_DOC)
            .define(BREAKER_FAILURES_CONFIG, Type.INT, DEFAULT_BREAKER_FAILURES, ConfigDef.Range.between(1, 1000),
                    Importance.LOW, BREAKER_FAILURES_DOC)
            .define(BREAKER_COOLOFF_MS_CONFIG, Type.INT, DEFAULT_BREAKER_COOLOFF_MS,
                    ConfigDef.Range.between(0, 3_600_000), Importance.LOW, BREAKER_COOLOFF_MS_DOC);

    public LagassignConfig(Map<String, ?> brokerProperties) {
        super(CONFIG, brokerProperties, false);
    }

    public URI url() {
        return URI.create(getString(URL_CONFIG));
    }

    public Duration timeout() {
        return Duration.ofMillis(getInt(TIMEOUT_MS_CONFIG));
    }

    /** The token, or null when none is set. */
    public String token() {
        Password token = getPassword(TOKEN_CONFIG);
        return token == null || token.value().isEmpty() ? null : token.value();
    }

    public String fallback() {
        return getString(FALLBACK_CONFIG);
    }

    public int breakerFailures() {
        return getInt(BREAKER_FAILURES_CONFIG);
    }

    public Duration breakerCoolOff() {
        return Duration.ofMillis(getInt(BREAKER_COOLOFF_MS_CONFIG));
    }

    private static void checkUrl(String name, Object value) {
        String text = value == null ? "" : value.toString().strip();
        if (text.isEmpty()) {
            throw new ConfigException(name, value, "must be set to the sidecar's URL, e.g. http://lagassign.kafka:8321, "
                    + "when io.lagassign.broker.LagassignAssignor is listed in group.consumer.assignors");
        }
        try {
            URI uri = new URI(text);
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                throw new ConfigException(name, value, "must be an http:// or https:// URL, e.g. http://127.0.0.1:8321");
            }
        } catch (URISyntaxException e) {
            throw new ConfigException(name, value, "is not a URL: " + e.getReason());
        }
    }
}
