package io.lagassign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LagAssignorConfigTest {

    private static Map<String, Object> configs() {
        return Groups.consumerConfigs("http://127.0.0.1:8321");
    }

    @Test
    void defaultsAreTheDocumentedOnes() {
        LagAssignorConfig config = new LagAssignorConfig(configs());
        assertEquals(Duration.ofMillis(LagAssignor.DEFAULT_TIMEOUT_MS), config.timeout());
        assertEquals(1500, LagAssignor.DEFAULT_TIMEOUT_MS);
        assertNull(config.strategy());
        assertNull(config.token());
        assertEquals("orders", config.consumer().groupId());
        assertNull(config.consumer().instanceId());
    }

    @Test
    void theConsumersOwnIdentityIsPickedUp() {
        Map<String, Object> configs = configs();
        configs.put("group.instance.id", "web-1");
        configs.put("client.rack", "rack-a");
        configs.put(LagAssignor.STRATEGY_CONFIG, "lag-aware");
        configs.put(LagAssignor.TIMEOUT_MS_CONFIG, "900");
        LagAssignorConfig config = new LagAssignorConfig(configs);
        assertEquals("web-1", config.consumer().instanceId());
        assertEquals("rack-a", config.consumer().rack());
        assertEquals("lag-aware", config.strategy());
        assertEquals(Duration.ofMillis(900), config.timeout());
    }

    @Test
    void aMissingUrlIsRefused() {
        Map<String, Object> configs = configs();
        configs.remove(LagAssignor.URL_CONFIG);
        ConfigException refused = assertThrows(ConfigException.class, () -> new LagAssignorConfig(configs));
        assertTrue(refused.getMessage().contains(LagAssignor.URL_CONFIG), refused.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1:8321", "ftp://host/", "http://", "http://bad host/"})
    void aUrlThatIsNotHttpIsRefused(String url) {
        Map<String, Object> configs = configs();
        configs.put(LagAssignor.URL_CONFIG, url);
        assertThrows(ConfigException.class, () -> new LagAssignorConfig(configs));
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://127.0.0.1:8321/assign", "http://127.0.0.1:8321/assign/",
        "https://lagassign.internal/api/assign"})
    void aUrlEndingInTheAssignPathIsRefusedWithTheReason(String url) {
        Map<String, Object> configs = configs();
        configs.put(LagAssignor.URL_CONFIG, url);
        ConfigException refused = assertThrows(ConfigException.class, () -> new LagAssignor().configure(configs));
        assertTrue(refused.getMessage().contains("without /assign"), refused.getMessage());
    }

    @Test
    void aBasePathIsKept() {
        Map<String, Object> configs = configs();
        configs.put(LagAssignor.URL_CONFIG, "https://lagassign.internal/assigners/");
        assertEquals("https://lagassign.internal/assigners/", new LagAssignorConfig(configs).url().toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-5", "60001", "1500000", "soon", "1.5"})
    void aNonsenseTimeoutIsRefused(String timeout) {
        Map<String, Object> configs = configs();
        configs.put(LagAssignor.TIMEOUT_MS_CONFIG, timeout);
        assertThrows(ConfigException.class, () -> new LagAssignorConfig(configs));
    }

    @Test
    void theResetPolicyIsTheConsumersOrKafkasDefault() {
        assertEquals("latest", new LagAssignorConfig(configs()).consumer().resetPolicy());
        Map<String, Object> configs = configs();
        configs.put("auto.offset.reset", "earliest");
        assertEquals("earliest", new LagAssignorConfig(configs).consumer().resetPolicy());
        configs.put("auto.offset.reset", "by_duration:PT1H");
        LagAssignorConfig byDuration = new LagAssignorConfig(configs);
        assertNull(byDuration.consumer().resetPolicy());
        assertEquals("by_duration:PT1H", byDuration.consumer().resetPolicyUnsent());
    }

    @Test
    void anUnknownStrategyIsRefused() {
        Map<String, Object> configs = configs();
        configs.put(LagAssignor.STRATEGY_CONFIG, "fastest");
        ConfigException refused = assertThrows(ConfigException.class, () -> new LagAssignorConfig(configs));
        assertTrue(refused.getMessage().contains("balanced"), refused.getMessage());
    }

    @Test
    void aGroupIdIsRequired() {
        Map<String, Object> configs = configs();
        configs.remove("group.id");
        ConfigException refused = assertThrows(ConfigException.class, () -> new LagAssignorConfig(configs));
        assertTrue(refused.getMessage().contains("group.id"), refused.getMessage());
    }

    @Test
    void theTokenIsAPasswordAndNeverPrinted() {
        Map<String, Object> configs = configs();
        configs.put(LagAssignor.TOKEN_CONFIG, "s3cret");
        LagAssignorConfig config = new LagAssignorConfig(configs);
        assertEquals("s3cret", config.token());
        assertFalse(config.values().toString().contains("s3cret"));
    }

    @Test
    void configureValidatesBeforeAnyRebalance() {
        Map<String, Object> configs = configs();
        configs.put(LagAssignor.TIMEOUT_MS_CONFIG, 0);
        assertThrows(ConfigException.class, () -> new LagAssignor().configure(configs));
    }
}
