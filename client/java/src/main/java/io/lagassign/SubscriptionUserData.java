package io.lagassign;

import java.util.List;
import java.util.Map;

/**
 * The subscription user data of the {@code lagassign} protocol, the same for Python and Java
 * members: {@code {"v": 1, "owned": {"t0": [0, 2]}, "generation": 7, "instance_id": "web-1",
 * "rack": null}}. It is how owned partitions, their generation and the static identity reach
 * the leader whatever the client library.
 *
 * @param owned      topic to owned partitions, sorted
 * @param generation the generation of the assignment the partitions came from, or null
 * @param instanceId the member's {@code group.instance.id}, or null
 * @param rack       the member's {@code client.rack}, or null
 */
public record SubscriptionUserData(
        Map<String, List<Integer>> owned, Integer generation, String instanceId, String rack) {

    static final SubscriptionUserData NOTHING_KNOWN = new SubscriptionUserData(Map.of(), null, null, null);

    public SubscriptionUserData {
        owned = Map.copyOf(owned);
    }
}
