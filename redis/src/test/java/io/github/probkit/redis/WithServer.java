package io.github.probkit.redis;

import java.io.IOException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** A test class with one redis-server and a store connected to it, for all its tests. */
abstract class WithServer {
  static RedisServer server;
  static RedisStore store;

  @BeforeAll
  static void startServer() throws IOException {
    server = RedisServer.start();
    store = RedisStore.connect(server.uri());
  }

  @AfterAll
  static void stopServer() {
    if (store != null) {
      store.close();
    }
    if (server != null) {
      server.close();
    }
  }
}
