package io.lagassign;

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
 * The {@code POST /assign} call with the JDK's HTTP client, bounded by a hard total deadline.
 *
 * <p>The request's own timeout covers the wait for the response headers only, so the leader waits
 * on the whole exchange (headers and body) until the deadline and cancels it there.
 */
final class Sidecar {
    static final String ASSIGN_PATH = "/assign";
    private static final int ERROR_TEXT_LIMIT = 200;

    private final URI assignUri;
    private final Duration timeout;
    private final String token;
    private final HttpClient client;

    Sidecar(URI base, Duration timeout, String token) {
        String text = base.toString();
        this.assignUri = URI.create((text.endsWith("/") ? text.substring(0, text.length() - 1) : text) + ASSIGN_PATH);
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
     * Sends one request and returns the body of a 200 answer.
     *
     * @param deadlineNanos a {@link System#nanoTime()} instant
     * @throws FallbackException TIMEOUT, UNREACHABLE or STATUS
     */
    byte[] postAssign(byte[] body, long deadlineNanos) throws FallbackException {
        long remaining = deadlineNanos - System.nanoTime();
        if (remaining <= 0) {
            throw new FallbackException(FallbackReason.TIMEOUT, "the deadline passed before the request was sent");
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
            throw new FallbackException(FallbackReason.TIMEOUT,
                    "no answer from " + assignUri + " within " + timeout.toMillis() + " ms");
        } catch (InterruptedException e) {
            exchange.cancel(true);
            Thread.currentThread().interrupt();
            throw new FallbackException(FallbackReason.TIMEOUT, "interrupted while waiting for " + assignUri);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof HttpTimeoutException) {
                throw new FallbackException(FallbackReason.TIMEOUT, assignUri + " timed out: " + cause);
            }
            if (cause instanceof IOException) {
                throw new FallbackException(FallbackReason.UNREACHABLE, assignUri + ": " + cause);
            }
            throw new IllegalStateException("the HTTP client failed unexpectedly", cause);
        }
        if (response.statusCode() != 200) {
            String text = new String(response.body(), StandardCharsets.UTF_8).strip();
            throw new FallbackException(FallbackReason.STATUS, assignUri + " answered HTTP " + response.statusCode()
                    + ": " + text.substring(0, Math.min(text.length(), ERROR_TEXT_LIMIT)));
        }
        return response.body();
    }
}
