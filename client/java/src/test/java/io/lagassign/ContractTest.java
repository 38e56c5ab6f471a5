package io.lagassign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The wire contract's answer cases ({@code contract/answers/} at the top of the repository, read
 * by every side): each valid answer reads as its {@code assignment}, each invalid one is refused.
 * The folder is the system property {@code lagassign.contract} (set by the pom), else
 * {@code ../../contract} from the working directory.
 */
class ContractTest {

    static Stream<Named<JsonNode>> cases(String kind) throws IOException {
        Path folder = Path.of(System.getProperty("lagassign.contract", "../../contract"), "answers", kind);
        List<Path> paths;
        try (Stream<Path> files = Files.list(folder)) {
            paths = files.filter(path -> path.toString().endsWith(".json")).sorted().toList();
        }
        assertTrue(!paths.isEmpty(), "no contract cases in " + folder.toAbsolutePath());
        List<Named<JsonNode>> cases = new ArrayList<>();
        for (Path path : paths) {
            cases.add(Named.of(path.getFileName().toString(), UserDataJson.MAPPER.readTree(path.toFile())));
        }
        return cases.stream();
    }

    static Stream<Named<JsonNode>> valid() throws IOException {
        return cases("valid");
    }

    static Stream<Named<JsonNode>> invalid() throws IOException {
        return cases("invalid");
    }

    /** The leader's view of the group the case's request was made for. */
    private static GroupView view(JsonNode request) {
        Map<String, GroupView.Member> members = new TreeMap<>();
        for (JsonNode member : request.get("members")) {
            JsonNode topics = member.has("topics") ? member.get("topics")
                    : request.get("subscriptions").get(member.get("subscription").intValue());
            TreeSet<String> subscribed = new TreeSet<>();
            topics.forEach(topic -> subscribed.add(topic.textValue()));
            Map<String, List<Integer>> owned = new TreeMap<>();
            member.path("owned").properties().forEach(topic -> {
                List<Integer> ids = new ArrayList<>();
                topic.getValue().forEach(id -> ids.add(id.intValue()));
                owned.put(topic.getKey(), ids);
            });
            Integer generation = member.path("generation").isInt() ? member.get("generation").intValue() : null;
            String memberId = member.get("member_id").textValue();
            members.put(memberId, new GroupView.Member(memberId, subscribed,
                    new SubscriptionUserData(owned, generation, null, null), null));
        }
        Map<String, Integer> partitions = new TreeMap<>();
        request.get("partitions").properties().forEach(topic -> partitions.put(topic.getKey(), topic.getValue().intValue()));
        return new GroupView(request.path("group_id").asText("g"), members, partitions);
    }

    private static AnswerReader.Answer read(JsonNode contractCase) throws FallbackException {
        JsonNode request = contractCase.get("request");
        byte[] answer = contractCase.get("answer").toString().getBytes(StandardCharsets.UTF_8);
        return AnswerReader.read(answer, view(request), "cooperative".equals(request.path("protocol").textValue()));
    }

    @ParameterizedTest
    @MethodSource("valid")
    void everyValidAnswerReadsAsItsAssignment(JsonNode contractCase) throws FallbackException {
        Map<String, List<TopicPartition>> expected = new TreeMap<>();
        contractCase.get("assignment").properties().forEach(member -> {
            Map<String, JsonNode> topics = new TreeMap<>();
            member.getValue().properties().forEach(topic -> topics.put(topic.getKey(), topic.getValue()));
            List<TopicPartition> partitions = new ArrayList<>();
            topics.forEach((topic, ids) -> ids.forEach(id -> partitions.add(new TopicPartition(topic, id.intValue()))));
            expected.put(member.getKey(), partitions);
        });
        assertEquals(expected, read(contractCase).assignment());
    }

    @ParameterizedTest
    @MethodSource("invalid")
    void everyInvalidAnswerIsRefused(JsonNode contractCase) {
        FallbackException refused = assertThrows(FallbackException.class, () -> read(contractCase),
                contractCase.get("why").textValue());
        assertTrue(refused.reason() == FallbackReason.MALFORMED || refused.reason() == FallbackReason.INVALID,
                refused.getMessage());
    }
}
