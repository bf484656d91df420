package io.github.probkit.redis;

import static io.github.probkit.redis.StoreTest.keys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Connecting, against real servers: URIs with a '+' in the password and digit-only keys, the
 * settings of the query string, and what each failure to connect says (TLS to a plain port, an
 * untrusted certificate, a client certificate required, a server that never answers, a missing or
 * wrong password, an ACL user with too few rights).
 */
class ConnectTest {
  private static final String ADMIN = "admin-pw";

  @TempDir static Path tmp;

  /** TLS on its TLS port (client certificates required), plain on its port; a password. */
  static RedisServer server;

  static int tlsPort;
  static TlsFiles tls;

  @BeforeAll
  static void start() throws Exception {
    tls = TlsFiles.make(tmp);
    tlsPort = RedisServer.freePort();
    server = RedisServer.start(tls.serverArgs(tlsPort, true).toArray(new String[0]));
    try (Jedis j = new Jedis("127.0.0.1", server.port())) {
      j.configSet("requirepass", ADMIN); // after the start: RedisServer waits for a PING
    }
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static String plain(String userInfo, String path) {
    return "redis://" + userInfo + "127.0.0.1:" + server.port() + path;
  }

  private static String tlsUri(String path, String query) {
    return "rediss://:"
        + ADMIN
        + "@127.0.0.1:"
        + tlsPort
        + path
        + (query.isEmpty() ? "" : "?" + query);
  }

  /** Adds keys through {@code uri}'s store and checks each is found, through another store. */
  private static void roundTrip(String uri, String name) {
    try (RedisStore s = RedisStore.connect(uri)) {
      RedisBloomFilter f = RedisBloomFilter.create(s, name, 1000, 0.01, RedisOptions.defaults());
      f.addAll(keys("k", 500));
    }
    try (RedisStore s = RedisStore.connect(uri)) {
      assertThat(RedisBloomFilter.open(s, name).mightContainAll(keys("k", 500))).containsOnly(true);
      s.delete(name);
    }
  }

  @Test
  void aPlusInThePasswordIsAPlus() {
    try (Jedis j = admin()) {
      j.aclSetUser("plus", "on", ">p+ss w", "~*", "+@all");
    }
    roundTrip(plain("plus:p+ss%20w@", "/plus-filter"), "plus-filter");
  }

  @Test
  void aDigitOnlyKeyIsAKeyInDatabaseZeroAndTheDatabaseIsExplicit() {
    String uri = plain(":" + ADMIN + "@", "/2024");
    try (RedisStore s = RedisStore.connect(uri)) {
      RedisBloomFilter f =
          RedisBloomFilter.create(s, RedisStore.keyOf(uri), 1000, 0.01, RedisOptions.defaults());
      f.addAll(keys("k", 100));
    }
    String inDb2 = plain(":" + ADMIN + "@", "/2024?db=2");
    try (RedisStore s = RedisStore.connect(inDb2)) {
      RedisBloomFilter.create(s, RedisStore.keyOf(inDb2), 10, 0.01, RedisOptions.defaults());
    }
    try (Jedis j = admin()) {
      assertThat(j.exists("{2024}")).isTrue();
      j.select(2);
      assertThat(j.exists("{2024}")).isTrue();
      j.flushDB();
      j.select(0);
      j.del("{2024}", "{2024}:0");
    }
  }

  @Test
  void tlsWithTheTruststoreAndClientCertificateOfTheUriWorks() {
    roundTrip(tlsUri("/over-tls", tls.query(true) + "&poolSize=4&socketTimeout=5s"), "over-tls");
  }

  @Test
  void tlsToAPlainPortFailsAtOnceSayingTheHandshakeFailed() {
    String uri =
        "rediss://:"
            + ADMIN
            + "@127.0.0.1:"
            + server.port()
            + "/x?connectTimeout=1s&"
            + tls.query(true);
    RedisStoreException e = failure(uri);
    assertThat(e.getMessage())
        .startsWith("redis 127.0.0.1:" + server.port() + ": TLS handshake failed: ")
        .containsAnyOf("a plain, non-TLS port?", "does not speak TLS on this port")
        .doesNotContain("\n");
  }

  @Test
  void anUntrustedCertificateSaysSo() {
    RedisStoreException e = failure(tlsUri("/x", ""));
    assertThat(e.getMessage())
        .startsWith(
            "redis 127.0.0.1:"
                + tlsPort
                + ": TLS handshake failed: the server's certificate is"
                + " not trusted (it is not signed by a certificate of the JVM's default truststore")
        .doesNotContain("unreachable");
  }

  @Test
  void aServerThatWantsAClientCertificateSaysSo() {
    RedisStoreException e = failure(tlsUri("/x", tls.query(false)));
    assertThat(e.getMessage())
        .startsWith(
            "redis 127.0.0.1:"
                + tlsPort
                + ": TLS handshake failed: the server refused to go on"
                + " without a client certificate (give one in keystore=FILE)");
  }

  @Test
  void aServerThatNeverAnswersFailsAfterTheSocketTimeoutSayingSo() throws IOException {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      List<Socket> held = new ArrayList<>();
      Thread accepter =
          new Thread(
              () -> {
                try {
                  while (true) {
                    held.add(silent.accept()); // accepted, never read nor answered
                  }
                } catch (IOException closed) {
                  // the test is over
                }
              });
      accepter.setDaemon(true);
      accepter.start();
      String uri = "redis://127.0.0.1:" + silent.getLocalPort() + "/x?socketTimeout=300ms";
      RedisStoreException e = failure(uri);
      assertThat(e.getMessage())
          .startsWith(
              "redis 127.0.0.1:"
                  + silent.getLocalPort()
                  + ": timed out: no reply within the socket timeout of 300 ms");
    }
  }

  @Test
  void aMissingOrWrongPasswordNamesWhereItComesFrom() {
    RedisStoreException none = failure(plain("", "/x"));
    assertThat(none.getMessage())
        .startsWith("redis 127.0.0.1:" + server.port() + ": authentication failed: NOAUTH")
        .contains("no password was given")
        .contains("the URI's user information")
        .contains("PROBKIT_REDIS_PASSWORD");
    RedisStoreException wrong = failure(plain(":wrong@", "/x"));
    assertThat(wrong.getMessage())
        .contains("authentication failed: WRONGPASS")
        .contains("the password was taken from the URI's user information")
        .contains("PROBKIT_REDIS_PASSWORD")
        .doesNotContain(":wrong");
    try (RedisStore s = RedisStore.connect(plain("", "/x"), "wrong-too")) {
      assertThatThrownBy(() -> s.exists("x"))
          .hasMessageContaining("the password was taken from connect()'s password");
    }
  }

  @Test
  void noRetriesMeansTheFirstLostReplyIsTheError() {
    String uri = plain(":" + ADMIN + "@", "/no-retry");
    for (int retries : new int[] {0, 3}) {
      try (RedisStore s = RedisStore.connect(uri + "?retries=" + retries)) {
        RedisBloomFilter f =
            RedisBloomFilter.create(s, "no-retry", 1000, 0.01, RedisOptions.defaults());
        boolean[] lose = {true};
        RedisStore.afterSync = FaultTest.loseReply(lose);
        try {
          if (retries == 0) {
            assertThatThrownBy(() -> f.addAll(keys("k", 10))).hasMessageContaining("reply lost");
          } else {
            assertThat(f.addAll(keys("k", 10))).containsOnly(true);
          }
        } finally {
          RedisStore.afterSync = () -> {};
        }
        s.delete("no-retry");
      }
    }
  }

  @Test
  void theSettingsReachTheConnection() {
    try (RedisStore s =
        RedisStore.connect(
            plain(":" + ADMIN + "@", "/k?socketTimeout=1500ms&poolSize=3"),
            null,
            RedisSettings.defaults().connectTimeout(Duration.ofMillis(700)).poolSize(50))) {
      assertThat(s.settings().socketTimeout()).isEqualTo(Duration.ofMillis(1500));
      assertThat(s.settings().connectTimeout()).isEqualTo(Duration.ofMillis(700));
      assertThat(s.settings().poolSize()).isEqualTo(3);
      // a pool of 3: no fourth connection however many threads ask
      List<Thread> threads = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        Thread t =
            new Thread(() -> s.jedis().blpop(1, "never-pushed-" + Thread.currentThread().getId()));
        threads.add(t);
        t.start();
      }
      // Sampled while the 8 one-second waits go through the pool, 3 at a time.
      long most = 0;
      try (Jedis j = admin()) {
        while (threads.stream().anyMatch(Thread::isAlive)) {
          long open = j.clientList().lines().filter(l -> l.contains("name=probkit")).count();
          most = Math.max(most, open);
          RedisServer.sleep(50);
        }
      }
      assertThat(most).isEqualTo(3);
      for (Thread t : threads) {
        t.join();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static RedisStoreException failure(String uri) {
    return assertTimeoutPreemptively(
        Duration.ofSeconds(60),
        () -> {
          try (RedisStore s = RedisStore.connect(uri)) {
            s.exists("x");
          } catch (RedisStoreException e) {
            assertThat(e.getMessage()).doesNotContain("\n").doesNotContain(TlsFiles.PASSWORD);
            return e;
          }
          throw new AssertionError("connected to " + uri);
        });
  }

  private static Jedis admin() {
    Jedis j = new Jedis("127.0.0.1", server.port());
    j.auth(ADMIN);
    return j;
  }
}
