package io.lagassign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class UserDataJsonTest {

    private static String text(ByteBuffer buffer) {
        return StandardCharsets.UTF_8.decode(buffer.duplicate()).toString();
    }

    private static ByteBuffer bytes(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void subscriptionUserDataIsByteForByteThePythonShimsJson() {
        SubscriptionUserData data = new SubscriptionUserData(
                Map.of("t1", List.of(3), "t0", List.of(2, 0)), 7, "web-1", null);
        // json.dumps(..., separators=(",", ":")) of the same values in lagassign_client
        assertEquals("{\"v\":1,\"owned\":{\"t0\":[0,2],\"t1\":[3]},\"generation\":7,\"instance_id\":\"web-1\","
                + "\"rack\":null}", text(UserDataJson.encode(data)));
    }

    @Test
    void subscriptionUserDataRoundTrips() {
        SubscriptionUserData data = new SubscriptionUserData(Map.of("t0", List.of(0, 2)), 3, null, "rack-a");
        assertEquals(data, UserDataJson.decodeSubscription(UserDataJson.encode(data)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "not json", "[1, 2]", "\"text\"", "{}", "{\"v\": 1} trailing"})
    void unreadableSubscriptionUserDataReadsAsNothingKnown(String raw) {
        assertEquals(SubscriptionUserData.NOTHING_KNOWN, UserDataJson.decodeSubscription(bytes(raw)));
    }

    @Test
    void absentSubscriptionUserDataReadsAsNothingKnown() {
        assertEquals(SubscriptionUserData.NOTHING_KNOWN, UserDataJson.decodeSubscription(null));
    }

    @Test
    void wronglyTypedFieldsAreDroppedOneByOne() {
        SubscriptionUserData read = UserDataJson.decodeSubscription(bytes(
                "{\"v\":1,\"owned\":{\"t0\":[1,\"2\",-1,true,0,1],\"t1\":\"x\",\"t2\":[]},"
                        + "\"generation\":\"7\",\"instance_id\":5,\"rack\":\"b\"}"));
        assertEquals(new SubscriptionUserData(Map.of("t0", List.of(0, 1)), null, null, "b"), read);
    }

    @Test
    void decodingLeavesTheBufferPositionAlone() {
        ByteBuffer raw = UserDataJson.encode(SubscriptionUserData.NOTHING_KNOWN);
        int before = raw.position();
        UserDataJson.decodeSubscription(raw);
        assertEquals(before, raw.position());
    }

    @Test
    void theAssignmentNoteSaysWhoMadeIt() {
        AssignmentNote bySidecar = new AssignmentNote("sidecar", "balanced", null);
        AssignmentNote byRange = new AssignmentNote("range", null, "timeout");
        assertEquals("{\"v\":1,\"by\":\"sidecar\",\"strategy\":\"balanced\"}", text(UserDataJson.encode(bySidecar)));
        assertEquals("{\"v\":1,\"by\":\"range\",\"reason\":\"timeout\"}", text(UserDataJson.encode(byRange)));
        assertEquals(Optional.of(bySidecar), UserDataJson.decodeNote(UserDataJson.encode(bySidecar)));
        assertEquals(Optional.of(byRange), UserDataJson.decodeNote(UserDataJson.encode(byRange)));
        assertTrue(UserDataJson.decodeNote(bytes("{\"by\":\"someone\"}")).isEmpty());
        assertTrue(UserDataJson.decodeNote(null).isEmpty());
    }
}
