package io.lagassign;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.Executors;

/** A real HTTP server on a free port of 127.0.0.1, on daemon threads: the tests' sidecars. */
final class LoopbackServer {
    private LoopbackServer() {
    }

    /** A started server that gives the requests under {@code path} to {@code handler}. */
    static HttpServer start(String path, HttpHandler handler, String threadName) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        }));
        server.createContext(path, handler);
        server.start();
        return server;
    }

    /** The server's base URL. */
    static URI url(HttpServer server) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }
}
