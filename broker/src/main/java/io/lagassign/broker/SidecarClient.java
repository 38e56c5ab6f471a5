package io.lagassign.broker;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The broker's one HTTP client to the sidecar (the JDK's), shared by every configured instance of
 * the assignor; where it sends and with which token comes from the {@link Settings} of each call.
 */
final class SidecarClient {
    static final String ASSIGN_PATH = "/assign";
    static final String LIVEZ_PATH = "/livez";
    /** A path behind the sidecar's token check that changes nothing: a 404 means the token passed. */
    static final String TOKEN_CHECK_PATH = "/groups/lagassign-broker-plugin-token-check";
    private static final int ERROR_TEXT_LIMIT = 200;

    private final HttpClient client;

    /** A 200 answer's body, and its {@code Server-Timing} (the sidecar's own steps; null if absent). */
    record Answered(byte[] body, String serverTiming) {
    }

    SidecarClient() {
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofMillis(LagassignConfig.MAX_TIMEOUT_MS))
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    /** A GET, for the start-up check and the breaker's check; the status, or an exception. */
    CompletableFuture<HttpResponse<String>> get(URI uri, String token, Duration timeout) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(timeout).GET();
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return client.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Sends one request and returns a 200 answer. Runs on the plugin's own thread,
     * which the coordinator's thread abandons (interrupts) at the deadline: the exchange is then
     * cancelled.
     *
     * @param deadlineNanos a {@link System#nanoTime()} instant
     * @throws FallbackException TIMEOUT, UNREACHABLE, STATUS, or UNKNOWN_GROUP for a 404 or 409
     */
    Answered postAssign(Settings settings, byte[] body, long deadlineNanos) throws FallbackException {
        URI assignUri = settings.assignUri();
        long remaining = deadlineNanos - System.nanoTime();
        if (remaining <= 0) {
            throw new FallbackException(Fault.TIMEOUT, "the deadline passed before the request was sent");
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(assignUri)
                .timeout(Duration.ofNanos(remaining))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (settings.token() != null) {
            request.header("Authorization", "Bearer " + settings.token());
        }
        CompletableFuture<HttpResponse<byte[]>> exchange =
                client.sendAsync(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        HttpResponse<byte[]> response;
        try {
            response = exchange.get(remaining, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            exchange.cancel(true);
            throw new FallbackException(Fault.TIMEOUT, "no answer from " + assignUri + " within "
                    + settings.timeout().toMillis() + " ms");
        } catch (InterruptedException e) {
            exchange.cancel(true);
            Thread.currentThread().interrupt();
            throw new FallbackException(Fault.TIMEOUT, "abandoned at the deadline while waiting for " + assignUri);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof HttpTimeoutException) {
                throw new FallbackException(Fault.TIMEOUT, assignUri + " timed out: " + cause);
            }
            if (cause instanceof IOException) {
                throw new FallbackException(Fault.UNREACHABLE, assignUri + ": " + cause);
            }
            throw new FallbackException(Fault.UNREACHABLE, assignUri + ": the HTTP client failed: " + cause);
        }
        int status = response.statusCode();
        if (status == 200) {
            return new Answered(response.body(), response.headers().firstValue("server-timing").orElse(null));
        }
        String text = new String(response.body(), StandardCharsets.UTF_8).strip();
        String excerpt = text.substring(0, Math.min(text.length(), ERROR_TEXT_LIMIT));
        if (status == 404 || status == 409) {
            throw new FallbackException(Fault.UNKNOWN_GROUP, assignUri + " cannot resolve the group (HTTP " + status
                    + "): " + excerpt);
        }
        throw new FallbackException(Fault.STATUS, assignUri + " answered HTTP " + status + ": " + excerpt);
    }
}
