package io.github.probkit.cli;

import io.github.probkit.redis.RedisServer;
import java.io.IOException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * A test class with one redis-server for all its tests (skipped without one, as the redis module's
 * tests). JUnit runs these before a subclass's own {@code @BeforeAll} and after its {@code
 * AfterAll}.
 */
abstract class WithRedisServer {
  static RedisServer server;

  @BeforeAll
  static void startServer() throws IOException {
    server = RedisServer.start();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  /** The redis:// URI of {@code key} on the server. */
  static String uri(String key) {
    return server.uri() + "/" + key;
  }
}
