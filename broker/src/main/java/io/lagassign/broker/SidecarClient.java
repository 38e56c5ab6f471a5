package io.lagassign.broker;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The broker's one HTTP client to the sidecar, shared by every configured instance of the
 * assignor; where it sends and with which token comes from the {@link Settings} of each call.
 *
 * <p>Every exchange is blocking I/O on the thread that makes it ({@link HttpURLConnection}, whose
 * connections the JDK keeps alive and reuses between calls to the same sidecar): the assignment's
 * on the plugin's call thread, the checks on a thread of their own.
 */
final class SidecarClient {
    static final String ASSIGN_PATH = "/assign";
    static final String LIVEZ_PATH = "/livez";
    /** A path behind the sidecar's token check that changes nothing: a 404 means the token passed. */
    static final String TOKEN_CHECK_PATH = "/groups/lagassign-broker-plugin-token-check";
    private static final int ERROR_TEXT_LIMIT = 200;

    private final ExecutorService checks = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "lagassign-check");
        thread.setDaemon(true);
        return thread;
    });

    /** A 200 answer's body, and its {@code Server-Timing} (the sidecar's own steps; null if absent). */
    record Answered(byte[] body, String serverTiming) {
    }

    /**
     * A GET, for the start-up check and the breaker's check, on the checks' thread: the status, or
     * the exception that ended it.
     */
    CompletableFuture<Integer> get(URI uri, String token, Duration timeout) {
        return CompletableFuture.supplyAsync(() -> {
            HttpURLConnection connection = null;
            try {
                connection = (HttpURLConnection) uri.toURL().openConnection(Proxy.NO_PROXY);
                connection.setUseCaches(false);
                connection.setInstanceFollowRedirects(false);
                connection.setConnectTimeout((int) timeout.toMillis());
                connection.setReadTimeout((int) timeout.toMillis());
                if (token != null) {
                    connection.setRequestProperty("Authorization", "Bearer " + token);
                }
                int status = connection.getResponseCode();
                try (InputStream in = status < 400 ? connection.getInputStream() : connection.getErrorStream()) {
                    if (in != null) {
                        in.readAllBytes();
                    }
                }
                return status;
            } catch (IOException e) {
                dropConnection(connection);
                throw new UncheckedIOException(e);
            }
        }, checks);
    }

    /**
     * Sends one request and returns a 200 answer. Runs on the plugin's own thread, which the
     * coordinator's thread abandons at the deadline.
     *
     * <p>The exchange is blocking I/O on this thread, not the JDK {@code HttpClient}'s (which this
     * plugin used before): that one writes and reads on a selector thread of its own and hands the
     * answer back to this one, and on a broker whose cores are busy serving fetches each hand-over
     * waits for a core (measured on a real broker at 50 × 10,000: 12 to 24 ms of each exchange
     * beyond the sidecar's own time with the JDK client, 5 to 13 ms with this). Connecting and
     * reading are bounded by the time left to the deadline; writing is not (a blocking socket has
     * no write timeout, and closing the connection from the coordinator's thread blocks on the
     * writer): a sidecar that accepts a request and stops reading it before the socket's buffers
     * took it all holds this thread until it reads again or the connection ends. The coordinator's
     * thread is not held (it returns at the deadline); at most {@link BrokerPlugin#MAX_CALL_THREADS}
     * such threads, then calls fall back at once ({@code busy}), and the breaker opens long
     * before. No proxy: the sidecar is asked directly, whatever the broker JVM's proxy settings.
     *
     * @param deadlineNanos a {@link System#nanoTime()} instant
     * @throws FallbackException TIMEOUT, UNREACHABLE, STATUS, or UNKNOWN_GROUP for a 404 or 409
     */
    Answered postAssign(Settings settings, byte[] body, long deadlineNanos) throws FallbackException {
        URI assignUri = settings.assignUri();
        int status;
        byte[] answer;
        String serverTiming;
        HttpURLConnection connection = null;
        try {
            connection = (HttpURLConnection) assignUri.toURL().openConnection(Proxy.NO_PROXY);
            connection.setRequestMethod("POST");
            connection.setDoOutput(true);
            connection.setUseCaches(false);
            connection.setInstanceFollowRedirects(false);
            connection.setFixedLengthStreamingMode(body.length);
            connection.setRequestProperty("Content-Type", "application/json");
            connection.setRequestProperty("Accept", "application/json");
            if (settings.token() != null) {
                connection.setRequestProperty("Authorization", "Bearer " + settings.token());
            }
            connection.setConnectTimeout(millisLeft(deadlineNanos, "the request was sent"));
            connection.setReadTimeout(millisLeft(deadlineNanos, "the request was sent"));
            try (OutputStream out = connection.getOutputStream()) {
                out.write(body);
            }
            connection.setReadTimeout(millisLeft(deadlineNanos, "the sidecar answered"));
            status = connection.getResponseCode();
            serverTiming = connection.getHeaderField("Server-Timing");
            try (InputStream in = status < 400 ? connection.getInputStream() : connection.getErrorStream()) {
                answer = in == null ? new byte[0] : in.readAllBytes();
            }
        } catch (SocketTimeoutException e) {
            dropConnection(connection);
            throw new FallbackException(Fault.TIMEOUT, "no answer from " + assignUri + " within "
                    + settings.timeout().toMillis() + " ms");
        } catch (IOException e) {
            dropConnection(connection);
            if (Thread.currentThread().isInterrupted()) {
                throw new FallbackException(Fault.TIMEOUT, "abandoned at the deadline while waiting for " + assignUri);
            }
            throw new FallbackException(Fault.UNREACHABLE, assignUri + ": " + e);
        }
        if (status == 200) {
            return new Answered(answer, serverTiming);
        }
        String text = new String(answer, StandardCharsets.UTF_8).strip();
        String excerpt = text.substring(0, Math.min(text.length(), ERROR_TEXT_LIMIT));
        if (status == 404 || status == 409) {
            throw new FallbackException(Fault.UNKNOWN_GROUP, assignUri + " cannot resolve the group (HTTP " + status
                    + "): " + excerpt);
        }
        throw new FallbackException(Fault.STATUS, assignUri + " answered HTTP " + status + ": " + excerpt);
    }

    /** Milliseconds left to the deadline (at least 1: 0 would mean no timeout), or TIMEOUT. */
    private static int millisLeft(long deadlineNanos, String before) throws FallbackException {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            throw new FallbackException(Fault.TIMEOUT, "the deadline passed before " + before);
        }
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(left)));
    }

    /** A connection left mid-exchange is closed, never handed to the next call. */
    private static void dropConnection(HttpURLConnection connection) {
        if (connection != null) {
            connection.disconnect();
        }
    }
}
