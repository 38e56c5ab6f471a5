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
 * {@code POST <url>/assign} with the JDK's HTTP client, bounded by a hard deadline: the calling
 * coordinator thread waits on the whole exchange (connect, headers, body) until the deadline and
 * no longer, then cancels it.
 */
final class SidecarClient {
    static final String ASSIGN_PATH = "/assign";
    static final String LIVEZ_PATH = "/livez";
    private static final int ERROR_TEXT_LIMIT = 200;

    private final URI base;
    private final URI assignUri;
    private final Duration timeout;
    private final String token;
    private final HttpClient client;

    SidecarClient(URI base, Duration timeout, String token) {
        String text = base.toString();
        String root = text.endsWith("/") ? text.substring(0, text.length() - 1) : text;
        this.base = URI.create(root);
        this.assignUri = URI.create(root + ASSIGN_PATH);
        this.timeout = timeout;
        this.token = token;
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(timeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    URI assignUri() {
        return assignUri;
    }

    Duration timeout() {
        return timeout;
    }

    /**
     * Opens a connection and loads the HTTP client's classes in the background, so that the first
     * rebalance does not spend its short deadline on them. Never waits; the answer is ignored.
     */
    CompletableFuture<?> warmUp() {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + LIVEZ_PATH))
                .timeout(Duration.ofSeconds(5)).GET().build();
        return client.sendAsync(request, HttpResponse.BodyHandlers.discarding());
    }

    /**
     * Sends one request and returns the body of a 200 answer.
     *
     * @param deadlineNanos a {@link System#nanoTime()} instant
     * @throws FallbackException TIMEOUT, UNREACHABLE, STATUS, or UNKNOWN_GROUP for a 404 or 409
     */
    byte[] postAssign(byte[] body, long deadlineNanos) throws FallbackException {
        long remaining = deadlineNanos - System.nanoTime();
        if (remaining <= 0) {
            throw new FallbackException(Fault.TIMEOUT, "the deadline passed before the request was sent");
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(assignUri)
                .timeout(Duration.ofNanos(remaining))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        CompletableFuture<HttpResponse<byte[]>> exchange =
                client.sendAsync(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        HttpResponse<byte[]> response;
        try {
            response = exchange.get(remaining, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            exchange.cancel(true);
            throw new FallbackException(Fault.TIMEOUT, "no answer from " + assignUri + " within "
                    + timeout.toMillis() + " ms");
        } catch (InterruptedException e) {
            exchange.cancel(true);
            Thread.currentThread().interrupt();
            throw new FallbackException(Fault.TIMEOUT, "interrupted while waiting for " + assignUri);
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
            return response.body();
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
