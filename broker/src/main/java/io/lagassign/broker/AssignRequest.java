package io.lagassign.broker;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The body of {@code POST /assign} for one consumer-protocol group, in the topic-id form:
 *
 * <pre>
 * {"topic_ids": true, "answer_form": "packed",
 *  "subscriptions": [["&lt;topic id&gt;", …], …],
 *  "members": [{"member_id": "…", "group_instance_id": null, "rack": "a",
 *               "subscription": 0, "owned": {"&lt;topic id&gt;": [0, 2]}}],
 *  "partitions": {"&lt;topic id&gt;": 3},
 *  "partition_racks": {"&lt;topic id&gt;": [["a", "b"], …]}}
 * </pre>
 *
 * <p>The compact form (docs/http-api.md): each distinct topic list once in {@code subscriptions},
 * each member naming its list by position, and the answer asked for {@code packed} (two base64
 * arrays per member, read by {@link AssignAnswer}), so a large group costs a few strings per member
 * each way rather than one per topic and partition.
 *
 * No {@code group_id}: the coordinator does not tell an assignor which group it assigns; the
 * sidecar resolves the group from the member ids. {@code partition_racks} is there only when a
 * member has a rack and the broker knows replica racks. Members, topics and partitions are sorted,
 * so the same spec always gives the same bytes.
 */
final class AssignRequest {
    static final JsonFactory JSON = new JsonFactory();

    private AssignRequest() {
    }

    /** Members written between two looks at the deadline. */
    static final int MEMBERS_PER_DEADLINE_CHECK = 64;

    /** TIMEOUT when the deadline has passed or this thread was interrupted (its call abandoned). */
    static void checkDeadline(long deadlineNanos, String doing) throws FallbackException {
        if (Thread.currentThread().isInterrupted()) {
            throw new FallbackException(Fault.TIMEOUT, "abandoned at the deadline while " + doing);
        }
        if (deadlineNanos != Long.MAX_VALUE && System.nanoTime() - deadlineNanos > 0) {
            throw new FallbackException(Fault.TIMEOUT, "the deadline passed while " + doing);
        }
    }

    static byte[] encode(GroupView view) {
        try {
            return encode(view, Long.MAX_VALUE);
        } catch (FallbackException e) {
            throw new IllegalStateException("no deadline, no timeout", e);
        }
    }

    /**
     * The body, or TIMEOUT as soon as the deadline (a {@link System#nanoTime()} instant, looked at
     * every few members) has passed: a big group must not hold the coordinator past it here.
     */
    static byte[] encode(GroupView view, long deadlineNanos) throws FallbackException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(1024 + 16 * view.partitionCount());
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            json.writeBooleanField("topic_ids", true);
            json.writeStringField("answer_form", "packed");
            Map<List<String>, Integer> byIdentity = new IdentityHashMap<>();
            Map<List<String>, Integer> byValue = new HashMap<>();
            int[] subscriptionOf = new int[view.members().size()];
            json.writeArrayFieldStart("subscriptions");
            int m = 0;
            for (GroupView.Member member : view.members()) {
                Integer index = byIdentity.get(member.topics());
                if (index == null) {
                    index = byValue.get(member.topics());
                    if (index == null) {
                        index = byValue.size();
                        byValue.put(member.topics(), index);
                        json.writeStartArray();
                        for (String topic : member.topics()) {
                            json.writeString(topic);
                        }
                        json.writeEndArray();
                    }
                    byIdentity.put(member.topics(), index);
                }
                subscriptionOf[m++] = index;
            }
            json.writeEndArray();
            json.writeArrayFieldStart("members");
            int written = 0;
            for (GroupView.Member member : view.members()) {
                if (++written % MEMBERS_PER_DEADLINE_CHECK == 0) {
                    checkDeadline(deadlineNanos, "writing the request (" + written + " of " + view.members().size()
                            + " members)");
                }
                json.writeStartObject();
                json.writeStringField("member_id", member.memberId());
                json.writeStringField("group_instance_id", member.instanceId());
                json.writeStringField("rack", member.rack());
                json.writeNumberField("subscription", subscriptionOf[written - 1]);
                json.writeObjectFieldStart("owned");
                for (String topic : member.topics()) {
                    int[] owned = member.owned().get(topic);
                    if (owned != null) {
                        json.writeFieldName(topic);
                        json.writeArray(owned, 0, owned.length);
                    }
                }
                json.writeEndObject();
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeObjectFieldStart("partitions");
            for (Map.Entry<String, GroupView.Topic> topic : view.topics().entrySet()) {
                json.writeNumberField(topic.getKey(), topic.getValue().partitions());
            }
            json.writeEndObject();
            boolean anyRacks = view.topics().values().stream().anyMatch(t -> t.racks() != null);
            if (anyRacks) {
                json.writeObjectFieldStart("partition_racks");
                for (Map.Entry<String, GroupView.Topic> topic : view.topics().entrySet()) {
                    if (topic.getValue().racks() == null) {
                        continue;
                    }
                    json.writeArrayFieldStart(topic.getKey());
                    for (Set<String> racks : topic.getValue().racks()) {
                        json.writeStartArray();
                        for (String rack : racks) {
                            json.writeString(rack);
                        }
                        json.writeEndArray();
                    }
                    json.writeEndArray();
                }
                json.writeEndObject();
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("writing JSON to memory failed", e);
        }
        return out.toByteArray();
    }
}
