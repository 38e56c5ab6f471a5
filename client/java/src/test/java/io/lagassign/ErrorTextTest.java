package io.lagassign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ErrorTextTest {
    private static String of(String body, String contentType) {
        return ErrorText.of(body.getBytes(StandardCharsets.UTF_8), contentType);
    }

    @Test
    void theSidecarsOwnErrorIsItsMessage() {
        assertEquals("members[0].topics: Field required",
                of("{\"error\": {\"code\": \"bad_request\", \"message\": \"members[0].topics: Field required\"}}",
                        "application/json"));
    }

    @Test
    void anHtmlPageIsItsTitleAndSize() {
        String page = FakeSidecar.HTML_PAGE;
        assertEquals("not a lagassign answer: an HTML page \"404 Not Found\" ("
                + page.getBytes(StandardCharsets.UTF_8).length + " bytes)", of(page, "text/html"));
        assertEquals("not a lagassign answer: an HTML page (13 bytes)", of("<html></html>", ""));
    }

    @Test
    void plainTextIsOneLineCutShort() {
        String line = of("upstream\nconnect error\n\n" + "x".repeat(500), "text/plain");
        assertTrue(line.startsWith("upstream connect error x"), line);
        assertEquals(ErrorText.LIMIT, line.length());
        assertEquals("(empty body)", of("  \n", "text/plain"));
    }
}
