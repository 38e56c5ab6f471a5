package io.lagassign;

import static io.lagassign.LagAssignor.DEFAULT_STRATEGY;
import static io.lagassign.LagAssignor.DEFAULT_TIMEOUT_MS;
import static io.lagassign.LagAssignor.STRATEGIES;
import static io.lagassign.LagAssignor.STRATEGY_CONFIG;
import static io.lagassign.LagAssignor.STRATEGY_DOC;
import static io.lagassign.LagAssignor.TIMEOUT_MS_CONFIG;
import static io.lagassign.LagAssignor.TIMEOUT_MS_DOC;
import static io.lagassign.LagAssignor.TOKEN_CONFIG;
import static io.lagassign.LagAssignor.TOKEN_DOC;
import static io.lagassign.LagAssignor.URL_CONFIG;
import static io.lagassign.LagAssignor.URL_DOC;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/** The {@code lagassign.*} settings, parsed and checked once, in {@code configure()}. */
final class LagAssignorConfig extends AbstractConfig {
    /** The longest deadline allowed: well under any sensible session timeout. */
    static final int MAX_TIMEOUT_MS = 60_000;

    static final ConfigDef CONFIG = new ConfigDef()
            .define(URL_CONFIG, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, LagAssignorConfig::checkUrl,
                    Importance.HIGH, URL_DOC)
            .define(TIMEOUT_MS_CONFIG, Type.INT, DEFAULT_TIMEOUT_MS, ConfigDef.Range.between(1, MAX_TIMEOUT_MS),
                    Importance.MEDIUM, TIMEOUT_MS_DOC)
            .define(STRATEGY_CONFIG, Type.STRING, DEFAULT_STRATEGY, LagAssignorConfig::checkStrategy,
                    Importance.MEDIUM, STRATEGY_DOC)
            .define(TOKEN_CONFIG, Type.PASSWORD, null, Importance.LOW, TOKEN_DOC);

    private final ConsumerSettings consumer;

    LagAssignorConfig(Map<String, ?> consumerConfigs) {
        super(CONFIG, consumerConfigs, false);
        this.consumer = ConsumerSettings.of(consumerConfigs);
    }

    URI url() {
        return URI.create(getString(URL_CONFIG));
    }

    Duration timeout() {
        return Duration.ofMillis(getInt(TIMEOUT_MS_CONFIG));
    }

    String strategy() {
        return getString(STRATEGY_CONFIG);
    }

    String token() {
        Password token = getPassword(TOKEN_CONFIG);
        return token == null || token.value().isEmpty() ? null : token.value();
    }

    /** The consumer's own settings the shim reads (its group, identity and reset policy). */
    ConsumerSettings consumer() {
        return consumer;
    }

    private static void checkUrl(String name, Object value) {
        String text = value == null ? "" : value.toString();
        try {
            URI uri = new URI(text);
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                throw new ConfigException(name, value, "must be an http:// or https:// URL, e.g. http://127.0.0.1:8321");
            }
            String path = uri.getPath() == null ? "" : uri.getPath().replaceAll("/+$", "");
            if (path.endsWith(Sidecar.ASSIGN_PATH)) {
                throw new ConfigException(name, value, "is the sidecar's base URL, without " + Sidecar.ASSIGN_PATH
                        + ": the shim adds " + Sidecar.ASSIGN_PATH + " itself (e.g. http://127.0.0.1:8321)");
            }
            if (uri.getQuery() != null || uri.getFragment() != null) {
                throw new ConfigException(name, value, "is the sidecar's base URL: no query or fragment");
            }
        } catch (URISyntaxException e) {
            throw new ConfigException(name, value, "is not a URL: " + e.getReason());
        }
    }

    private static void checkStrategy(String name, Object value) {
        if (value != null && !STRATEGIES.contains(value.toString())) {
            throw new ConfigException(name, value, "must be one of " + String.join(", ", STRATEGIES)
                    + ", or unset for the sidecar's default");
        }
    }
}
