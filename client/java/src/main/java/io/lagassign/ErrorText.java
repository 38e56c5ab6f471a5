package io.lagassign;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The body of a non-200 answer as one short line for the log.
 *
 * <p>The sidecar's own errors are JSON, {@code {"error": {"code", "message", "details"}}}, shown by
 * their message; anything else
 * is some other server's page: an HTML page becomes its title and size, e.g. {@code not a
 * lagassign answer: text/html page "404 Not Found" (1,234 bytes)}; plain text is cut to one line.
 */
final class ErrorText {
    static final int LIMIT = 160;
    private static final Pattern TITLE = Pattern.compile("<title[^>]*>(.*?)</title>",
            Pattern.CASE_INSENSITIVE | Pattern.DOTALL);

    private ErrorText() {
    }

    static String of(byte[] body, String contentType) {
        String text = new String(body, StandardCharsets.UTF_8).strip();
        if (text.isEmpty()) {
            return "(empty body)";
        }
        String type = contentType.toLowerCase(Locale.ROOT);
        if (type.contains("json") || text.startsWith("{")) {
            try {
                JsonNode root = UserDataJson.MAPPER.readTree(body);
                if (root != null && root.isObject()) {
                    JsonNode error = root.path("error");
                    String message = error.isObject()
                            ? firstText(error, "message", "code") : firstText(root, "message", "detail", "error");
                    if (message != null) {
                        return shortLine(message);
                    }
                }
            } catch (IOException e) {
                // not JSON after all: shown as text below
            }
        }
        if (type.contains("html") || text.regionMatches(true, 0, "<!doctype html", 0, 14)
                || text.regionMatches(true, 0, "<html", 0, 5)) {
            Matcher title = TITLE.matcher(text);
            String named = title.find() ? " \"" + shortLine(title.group(1)) + "\"" : "";
            return "not a lagassign answer: an HTML page" + named + " (" + body.length + " bytes)";
        }
        return shortLine(text);
    }

    private static String firstText(JsonNode root, String... fields) {
        for (String field : fields) {
            JsonNode value = root.path(field);
            if (value.isTextual() && !value.textValue().isBlank()) {
                return value.textValue();
            }
        }
        return null;
    }

    /** Whitespace (new lines included) collapsed, cut to {@link #LIMIT} characters. */
    static String shortLine(String text) {
        String line = text.replaceAll("\\s+", " ").strip();
        return line.length() <= LIMIT ? line : line.substring(0, LIMIT - 3) + "...";
    }
}
