package io.lagassign.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The wire contract's answer cases ({@code contract/answers/} at the top of the repository, read
 * by every side): each valid answer reads as its {@code assignment}, each invalid one is refused.
 * The plugin names topics by id: the topic-id cases are read as they are, the others with each
 * topic name (in the request, the answer's {@code topics} and the expected assignment) replaced by
 * a topic id of its own. The folder is the system property {@code lagassign.contract} (set by the
 * pom), else {@code ../contract} from the working directory.
 */
class ContractTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    static Stream<Named<JsonNode>> cases(String kind) throws IOException {
        Path folder = Path.of(System.getProperty("lagassign.contract", "../contract"), "answers", kind);
        List<Path> paths;
        try (Stream<Path> files = Files.list(folder)) {
            paths = files.filter(path -> path.toString().endsWith(".json")).sorted().toList();
        }
        assertTrue(!paths.isEmpty(), "no contract cases in " + folder.toAbsolutePath());
        List<Named<JsonNode>> cases = new ArrayList<>();
        for (Path path : paths) {
            cases.add(Named.of(path.getFileName().toString(), JSON.readTree(path.toFile())));
        }
        return cases.stream();
    }

    static Stream<Named<JsonNode>> valid() throws IOException {
        return cases("valid");
    }

    static Stream<Named<JsonNode>> invalid() throws IOException {
        return cases("invalid");
    }

    /** A topic's id: itself in the topic-id form, else one made from its name. */
    private static Uuid idOf(JsonNode request, String topic) {
        if (request.path("topic_ids").asBoolean(false)) {
            return Uuid.fromString(topic);
        }
        UUID id = UUID.nameUUIDFromBytes(topic.getBytes(StandardCharsets.UTF_8));
        return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    /** The group's spec as the coordinator hands it to the plugin, for the case's request. */
    private static GroupView view(JsonNode request) throws FallbackException {
        Groups.Spec spec = Groups.group();
        request.get("partitions").properties().forEach(topic ->
                spec.topic(idOf(request, topic.getKey()), topic.getValue().intValue()));
        for (JsonNode member : request.get("members")) {
            JsonNode topics = member.has("topics") ? member.get("topics")
                    : request.get("subscriptions").get(member.get("subscription").intValue());
            Set<Uuid> subscribed = new HashSet<>();
            topics.forEach(topic -> subscribed.add(idOf(request, topic.textValue())));
            spec.member(member.get("member_id").textValue(), subscribed);
        }
        return GroupView.of(spec.spec(), spec.describer());
    }

    /** The case's answer with its {@code topics} named by id. */
    private static byte[] answer(JsonNode contractCase) {
        JsonNode request = contractCase.get("request");
        ObjectNode answer = contractCase.get("answer").deepCopy();
        if (answer.get("topics") instanceof ArrayNode names) {
            ArrayNode ids = answer.putArray("topics");
            names.forEach(name -> {
                if (name.isTextual()) {
                    ids.add(idOf(request, name.textValue()).toString());
                } else {
                    ids.add(name);
                }
            });
        }
        return answer.toString().getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @MethodSource("valid")
    void everyValidAnswerReadsAsItsAssignment(JsonNode contractCase) throws FallbackException {
        JsonNode request = contractCase.get("request");
        if (contractCase.get("revoked").properties().stream().anyMatch(member -> !member.getValue().isEmpty())) {
            // The coordinator revokes partitions itself: an answer that withholds some is refused.
            FallbackException refused = assertThrows(FallbackException.class,
                    () -> AssignAnswer.read(answer(contractCase), view(request)));
            assertEquals(Fault.INVALID, refused.fault(), refused.getMessage());
            return;
        }
        Map<String, Map<Uuid, Set<Integer>>> expected = new HashMap<>();
        contractCase.get("assignment").properties().forEach(member -> {
            Map<Uuid, Set<Integer>> topics = new HashMap<>();
            member.getValue().properties().forEach(topic -> {
                Set<Integer> ids = new HashSet<>();
                topic.getValue().forEach(id -> ids.add(id.intValue()));
                topics.put(idOf(request, topic.getKey()), ids);
            });
            expected.put(member.getKey(), topics);
        });
        assertEquals(expected, Groups.plain(AssignAnswer.read(answer(contractCase), view(request)).assignment()));
    }

    @ParameterizedTest
    @MethodSource("invalid")
    void everyInvalidAnswerIsRefused(JsonNode contractCase) {
        FallbackException refused = assertThrows(FallbackException.class,
                () -> AssignAnswer.read(answer(contractCase), view(contractCase.get("request"))),
                contractCase.get("why").textValue());
        assertTrue(refused.fault() == Fault.MALFORMED || refused.fault() == Fault.INVALID, refused.getMessage());
    }
}
