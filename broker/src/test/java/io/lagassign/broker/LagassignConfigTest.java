package io.lagassign.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LagassignConfigTest {

    private static Map<String, Object> broker(String... keyValues) {
        Map<String, Object> props = new HashMap<>();
        // The broker hands every property over, its own ones included.
        props.put("node.id", "1");
        props.put("group.consumer.assignors", "uniform,range,io.lagassign.broker.LagassignAssignor");
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put(keyValues[i], keyValues[i + 1]);
        }
        return props;
    }

    @Test
    void defaults() {
        LagassignConfig config = new LagassignConfig(broker("lagassign.url", "http://127.0.0.1:8321"));
        assertEquals("http://127.0.0.1:8321", config.url().toString());
        assertEquals(Duration.ofMillis(50), config.timeout());
        assertEquals("uniform", config.fallback());
        assertNull(config.token());
        assertEquals(3, config.breakerFailures());
        assertEquals(Duration.ofSeconds(30), config.breakerCoolOff());
    }

    @Test
    void everyPropertySet() {
        LagassignConfig config = new LagassignConfig(broker("lagassign.url", "https://lagassign.kafka:8443/",
                "lagassign.timeout.ms", "120", "lagassign.token", "s3cret", "lagassign.fallback", "range",
                "lagassign.breaker.failures", "7", "lagassign.breaker.cooloff.ms", "1000"));
        assertEquals(Duration.ofMillis(120), config.timeout());
        assertEquals("s3cret", config.token());
        assertEquals("range", config.fallback());
        assertEquals(7, config.breakerFailures());
        assertEquals(Duration.ofSeconds(1), config.breakerCoolOff());
    }

    @Test
    void theUrlIsRequiredAndTheMessageSaysWhy() {
        ConfigException e = assertThrows(ConfigException.class, () -> new LagassignConfig(broker()));
        assertTrue(e.getMessage().contains("lagassign.url"), e.getMessage());
        LagassignAssignor assignor = new LagassignAssignor();
        assertThrows(ConfigException.class, () -> assignor.configure(broker()));
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "lagassign.url                | ''",
        "lagassign.url                | ftp://127.0.0.1:8321",
        "lagassign.url                | 127.0.0.1:8321",
        "lagassign.url                | http://exa mple",
        "lagassign.timeout.ms         | 0",
        "lagassign.timeout.ms         | 1001",
        "lagassign.timeout.ms         | soon",
        "lagassign.fallback           | roundrobin",
        "lagassign.fallback           | lagassign",
        "lagassign.breaker.failures   | 0",
        "lagassign.breaker.cooloff.ms | -1",
    })
    void aWrongValueStopsTheBrokerNamingTheProperty(String key, String value) {
        Map<String, Object> props = broker("lagassign.url", "http://127.0.0.1:8321");
        props.put(key, value);
        ConfigException e = assertThrows(ConfigException.class, () -> new LagassignAssignor().configure(props));
        assertTrue(e.getMessage().contains(key), e.getMessage());
    }
}
