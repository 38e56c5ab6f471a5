package io.lagassign;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One member's partitions in the {@code packed} answer form: {@code {"topic_indices": "<base64>",
 * "partitions": "<base64>"}}, two equally long arrays of unsigned 32-bit little-endian integers in
 * standard base64 with padding (RFC 4648, section 4). Element {@code i} of both is partition
 * {@code partitions[i]} of topic {@code topics[topic_indices[i]]}, in strictly ascending (topic
 * index, partition) order; a member with nothing has two empty strings.
 *
 * <p>Each array is one base64 decode (Jackson's) and one bulk copy into an {@code int[]}: a
 * million partitions are a few thousand strings, not millions of JSON numbers. Jackson's decoder
 * refuses a character outside the standard alphabet and missing padding; like a MIME decoder it
 * skips whitespace between groups of four characters, which changes no value. Whether a topic
 * index is within the answer's {@code topics} is left to the reader, which may meet
 * {@code topics} after the assignment.
 *
 * @param topicIndices element i: an index into the answer's {@code topics}
 * @param partitions   element i: a partition id of that topic
 */
record PackedPairs(int[] topicIndices, int[] partitions) {
    static final String TOPIC_INDICES = "topic_indices";
    static final String PARTITIONS = "partitions";
    /** The shape, for messages. */
    static final String SHAPE = "{\"topic_indices\": \"<base64>\", \"partitions\": \"<base64>\"}";

    /**
     * Reads and checks one member's object, the parser on its first field's value; returns with
     * the parser on the object's end. {@code where} names the member in messages
     * ({@code assignment['c-1']}).
     *
     * @throws FallbackException (MALFORMED) when the object is not exactly the two base64 strings,
     *     either is not whole 4-byte integers, they differ in length, a value is 2^31 or more, or
     *     the pairs are not in strictly ascending (topic index, partition) order
     */
    static PackedPairs read(JsonParser json, String where) throws IOException, FallbackException {
        int[] topicIndices = null;
        int[] partitions = null;
        do {
            String field = json.currentName();
            if (!TOPIC_INDICES.equals(field) && !PARTITIONS.equals(field)) {
                throw notPacked(where, "it has a field '" + field + "'");
            }
            if (TOPIC_INDICES.equals(field) ? topicIndices != null : partitions != null) {
                throw notPacked(where, "it has '" + field + "' twice");
            }
            if (json.currentToken() != JsonToken.VALUE_STRING) {
                throw notPacked(where, "'" + field + "' is not a string");
            }
            int[] values = integers(json, where + "." + field);
            if (TOPIC_INDICES.equals(field)) {
                topicIndices = values;
            } else {
                partitions = values;
            }
        } while (json.nextToken() == JsonToken.FIELD_NAME && json.nextToken() != null);
        if (json.currentToken() != JsonToken.END_OBJECT) {
            throw notPacked(where, "the answer ends inside it");
        }
        if (topicIndices == null || partitions == null) {
            throw notPacked(where, "it has no '" + (topicIndices == null ? TOPIC_INDICES : PARTITIONS) + "'");
        }
        if (topicIndices.length != partitions.length) {
            throw malformed(where + " has " + topicIndices.length + " topic indices but "
                    + partitions.length + " partitions");
        }
        for (int i = 1; i < partitions.length; i++) {
            int topic = topicIndices[i - 1];
            if (topicIndices[i] < topic || (topicIndices[i] == topic && partitions[i] <= partitions[i - 1])) {
                throw malformed(where + " is not in strictly ascending (topic index, partition)"
                        + " order at element " + i + ": (" + topicIndices[i - 1] + ", " + partitions[i - 1]
                        + ") then (" + topicIndices[i] + ", " + partitions[i] + ")");
            }
        }
        return new PackedPairs(topicIndices, partitions);
    }

    /** The parser's base64 string as little-endian 32-bit integers, each below 2^31. */
    private static int[] integers(JsonParser json, String where) throws IOException, FallbackException {
        byte[] bytes;
        try {
            bytes = json.getBinaryValue();
        } catch (StreamReadException e) {
            throw malformed(where + " is not base64 (RFC 4648, with padding): "
                    + String.valueOf(e.getOriginalMessage()).lines().findFirst().orElse(""));
        }
        if (bytes.length % Integer.BYTES != 0) {
            throw malformed(where + " is " + bytes.length
                    + " bytes, not a whole number of 4-byte integers");
        }
        int[] values = new int[bytes.length / Integer.BYTES];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(values);
        for (int i = 0; i < values.length; i++) {
            if (values[i] < 0) {
                throw malformed(where + "[" + i + "] is " + Integer.toUnsignedString(values[i])
                        + ", not below 2^31");
            }
        }
        return values;
    }

    private static FallbackException notPacked(String where, String why) {
        return malformed(where + " is not " + SHAPE + ": " + why);
    }

    private static FallbackException malformed(String message) {
        return new FallbackException(FallbackReason.MALFORMED, message);
    }
}
