package io.lagassign.broker;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * A JDK HttpServer on 127.0.0.1 standing in for the sidecar, to produce the faults a real sidecar
 * cannot produce on demand: a status, a body built from the request, a delay.
 */
final class FakeSidecar implements AutoCloseable {
    /** What to answer a request body with. */
    record Reply(int status, String body, long delayMs) {
        static Reply ok(String body) {
            return new Reply(200, body, 0);
        }
    }

    private final HttpServer server;
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final List<String> authorizations = new CopyOnWriteArrayList<>();
    private volatile Function<String, Reply> replies = body -> new Reply(503, "{}", 0);
    private volatile int livezStatus = 200;
    private final java.util.concurrent.atomic.AtomicInteger livezChecks = new java.util.concurrent.atomic.AtomicInteger();

    FakeSidecar() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/assign", this::handle);
        server.createContext("/livez", exchange -> {
            try (exchange) {
                livezChecks.incrementAndGet();
                byte[] bytes = "{}".getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(livezStatus, bytes.length);
                exchange.getResponseBody().write(bytes);
            }
        });
        server.start();
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    void answer(Function<String, Reply> replies) {
        this.replies = replies;
    }

    /** The status {@code GET /livez} answers (200 unless told). */
    void livez(int status) {
        this.livezStatus = status;
    }

    int livezChecks() {
        return livezChecks.get();
    }

    List<String> requests() {
        return requests;
    }

    List<String> authorizations() {
        return authorizations;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            requests.add(body);
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            authorizations.add(auth == null ? "" : auth);
            Reply reply = replies.apply(body);
            if (reply.delayMs() > 0) {
                try {
                    Thread.sleep(reply.delayMs());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            byte[] bytes = reply.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(reply.status(), bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            } catch (IOException e) {
                // The assignor gave up (its deadline passed) and closed the connection.
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
