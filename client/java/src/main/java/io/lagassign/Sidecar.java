package io.lagassign;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.UnresolvedAddressException;
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
     * @throws FallbackException TIMEOUT, UNKNOWN_HOST, CONNECTION_REFUSED, UNREACHABLE or STATUS
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
                throw connectionFailure((IOException) cause);
            }
            throw new IllegalStateException("the HTTP client failed unexpectedly", cause);
        }
        if (response.statusCode() != 200) {
            throw new FallbackException(FallbackReason.STATUS, assignUri + " answered HTTP " + response.statusCode()
                    + ": " + ErrorText.of(response.body(), response.headers().firstValue("Content-Type").orElse("")));
        }
        return response.body();
    }

    /** Unknown host, refused connection, or another connection error, told apart by their causes. */
    private FallbackException connectionFailure(IOException failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof UnresolvedAddressException || cause instanceof UnknownHostException) {
                return new FallbackException(FallbackReason.UNKNOWN_HOST,
                        "the sidecar's host '" + assignUri.getHost() + "' does not resolve (" + assignUri + ")");
            }
        }
        // The JDK's client reports a refused connect as a ConnectException whose cause is the
        // channel it closed (JDK 17), or with the socket's "Connection refused" message.
        if (failure instanceof ConnectException && !(failure instanceof HttpTimeoutException)) {
            String text = String.valueOf(failure.getMessage());
            if (failure.getCause() instanceof ClosedChannelException || text.contains("refused")
                    || failure.getMessage() == null) {
                return new FallbackException(FallbackReason.CONNECTION_REFUSED,
                        "connection refused by " + assignUri.getHost() + ":" + port() + " (" + assignUri
                                + "): is the sidecar running there?");
            }
        }
        return new FallbackException(FallbackReason.UNREACHABLE, assignUri + ": " + failure);
    }

    private int port() {
        if (assignUri.getPort() >= 0) {
            return assignUri.getPort();
        }
        return "https".equals(assignUri.getScheme()) ? 443 : 80;
    }
}
