package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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

  /** What one writer of a fleet does, on its own connection, its clock {@code offset} ms off. */
  interface FleetWriter {
    void write(RedisStore own, int writer, long offset) throws Exception;
  }

  /**
   * Runs {@code writers} writers at once, each on its own connection to the server, their clocks
   * spread evenly from {@code skew / 2} behind to {@code skew / 2} ahead; rethrows a failure.
   */
  static void runFleet(int writers, Duration skew, FleetWriter w) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    List<Future<?>> done = new ArrayList<>();
    for (int i = 0; i < writers; i++) {
      int writer = i;
      long offset = skew.toMillis() * i / (writers - 1) - skew.toMillis() / 2;
      done.add(
          pool.submit(
              () -> {
                try (RedisStore own = RedisStore.connect(server.uri())) {
                  w.write(own, writer, offset);
                  return null;
                }
              }));
    }
    for (Future<?> f : done) {
      f.get();
    }
    pool.shutdown();
  }

  /** Importing {@code file} as {@code name} is refused with {@code message} and leaves nothing. */
  static void assertImportRefused(String name, byte[] file, String message) {
    assertThatThrownBy(
            () -> store.importFrom(name, new ByteArrayInputStream(file), RedisOptions.defaults()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
    assertThat(store.exists(name)).isFalse();
  }

  @AfterAll
  static void stopServer() throws Exception {
    closeStarted(store, server);
  }

  /** Closes, in this order, what a test class started; null where the start failed before it. */
  static void closeStarted(AutoCloseable... started) throws Exception {
    for (AutoCloseable c : started) {
      if (c != null) {
        c.close();
      }
    }
  }
}
