package io.github.probkit.redis;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * How a {@link RedisStore} connects: timeouts, retries, connection pool and TLS stores. Immutable;
 * each method returns a modified copy: {@code RedisSettings.defaults().poolSize(64)}. The same
 * settings can be given in a URI's query string ({@code
 * redis://host/KEY?socketTimeout=2s&poolSize=64}, names as the methods here), which overrides the
 * settings passed to {@link RedisStore#connect(String, String, RedisSettings)}. docs/REDIS.md lists
 * them with their defaults.
 */
public final class RedisSettings {
  /** The names a URI's query string may set (besides {@code db}, which is the endpoint's). */
  static final List<String> QUERY_NAMES =
      List.of(
          "connectTimeout",
          "socketTimeout",
          "retries",
          "poolSize",
          "truststore",
          "truststorePassword",
          "keystore",
          "keystorePassword");

  /**
   * The values behind one settings object. Each setter changes a fresh clone before wrapping it,
   * and nothing changes it after, so the settings stay immutable (the wrapper's final field
   * publishes it) while a setter names only the value it sets.
   */
  private static final class Values implements Cloneable {
    Duration connectTimeout = Duration.ofSeconds(2);
    Duration socketTimeout = Duration.ofSeconds(10);
    int retries = 3;
    int poolSize = 32;
    Path truststore;
    String truststorePassword;
    Path keystore;
    String keystorePassword;

    Values copy() {
      try {
        return (Values) super.clone();
      } catch (CloneNotSupportedException e) {
        throw new AssertionError(e);
      }
    }
  }

  private static final RedisSettings DEFAULTS = new RedisSettings(new Values());

  private final Values v;

  private RedisSettings(Values v) {
    this.v = v;
  }

  private RedisSettings with(Consumer<Values> change) {
    Values c = v.copy();
    change.accept(c);
    return new RedisSettings(c);
  }

  /**
   * Connect timeout 2 s (the TLS handshake too), socket timeout 10 s, 3 retries, a pool of 32
   * connections per node, the JVM's default truststore and no client certificate.
   */
  public static RedisSettings defaults() {
    return DEFAULTS;
  }

  /**
   * How long opening a TCP connection, and then its TLS handshake, may take, in [1 ms, 10 min]. A
   * {@code rediss://} URI to a plain (non-TLS) port fails after this, naming the handshake.
   */
  public RedisSettings connectTimeout(Duration timeout) {
    Duration t = checkTimeout("connectTimeout", timeout);
    return with(c -> c.connectTimeout = t);
  }

  /** How long a command or batch waits for the server's reply, in [1 ms, 10 min]. */
  public RedisSettings socketTimeout(Duration timeout) {
    Duration t = checkTimeout("socketTimeout", timeout);
    return with(c -> c.socketTimeout = t);
  }

  /**
   * How many times an idempotent batch is sent again after a lost connection, a timeout or a
   * failover, in [0, 10]; waits of 0.4, 1.6, then 6.4 s between attempts.
   */
  public RedisSettings retries(int retries) {
    if (retries < 0 || retries > 10) {
      throw new IllegalArgumentException("retries must be in [0, 10], was " + retries);
    }
    return with(c -> c.retries = retries);
  }

  /**
   * The most connections kept to one node, in [1, 1024]: threads beyond it wait for a connection.
   */
  public RedisSettings poolSize(int connections) {
    if (connections < 1 || connections > 1024) {
      throw new IllegalArgumentException("poolSize must be in [1, 1024], was " + connections);
    }
    return with(c -> c.poolSize = connections);
  }

  /**
   * The certificates trusted for TLS ({@code rediss://}): a PKCS#12 or JKS file, and its password
   * (may be null), instead of the JVM's default truststore.
   */
  public RedisSettings truststore(Path file, String password) {
    Objects.requireNonNull(file, "truststore");
    return with(
        c -> {
          c.truststore = file;
          c.truststorePassword = password;
        });
  }

  /**
   * The client certificate and its key for TLS, for servers that require one ({@code
   * tls-auth-clients yes}): a PKCS#12 or JKS file, and its password.
   */
  public RedisSettings keystore(Path file, String password) {
    Objects.requireNonNull(file, "keystore");
    return with(
        c -> {
          c.keystore = file;
          c.keystorePassword = password;
        });
  }

  public Duration connectTimeout() {
    return v.connectTimeout;
  }

  public Duration socketTimeout() {
    return v.socketTimeout;
  }

  public int retries() {
    return v.retries;
  }

  public int poolSize() {
    return v.poolSize;
  }

  /** The truststore file, or null for the JVM's default. */
  public Path truststore() {
    return v.truststore;
  }

  String truststorePassword() {
    return v.truststorePassword;
  }

  /** The client certificate's keystore file, or null for none. */
  public Path keystore() {
    return v.keystore;
  }

  String keystorePassword() {
    return v.keystorePassword;
  }

  /**
   * These settings with a URI's query parameters applied (names in {@link #QUERY_NAMES}, values
   * decoded); a bad value is an {@link IllegalArgumentException} naming the parameter.
   */
  RedisSettings with(Map<String, String> query) {
    RedisSettings s = this;
    String trustPassword = query.get("truststorePassword");
    String keyPassword = query.get("keystorePassword");
    for (Map.Entry<String, String> q : query.entrySet()) {
      String v = q.getValue();
      switch (q.getKey()) {
        case "connectTimeout":
          s = s.connectTimeout(duration(q.getKey(), v));
          break;
        case "socketTimeout":
          s = s.socketTimeout(duration(q.getKey(), v));
          break;
        case "retries":
          s = s.retries(integer(q.getKey(), v));
          break;
        case "poolSize":
          s = s.poolSize(integer(q.getKey(), v));
          break;
        case "truststore":
          s = s.truststore(path(q.getKey(), v), trustPassword);
          break;
        case "keystore":
          s = s.keystore(path(q.getKey(), v), keyPassword);
          break;
        case "truststorePassword":
        case "keystorePassword":
          if (query.get(q.getKey().replace("Password", "")) == null) {
            throw new IllegalArgumentException(
                q.getKey() + " needs " + q.getKey().replace("Password", "") + " beside it");
          }
          break;
        default:
          throw new IllegalArgumentException(
              "unknown parameter '"
                  + q.getKey()
                  + "' (known: db, "
                  + String.join(", ", QUERY_NAMES)
                  + ")");
      }
    }
    return s;
  }

  /** {@code 500ms} or {@code 2s}: a unit is required, so that no one guesses which. */
  private static Duration duration(String name, String v) {
    try {
      if (v.matches("[0-9]{1,9}ms")) {
        return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
      }
      if (v.matches("[0-9]{1,6}s")) {
        return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new IllegalArgumentException(
        name + " must be a duration such as 500ms or 2s, was '" + v + "'");
  }

  private static int integer(String name, String v) {
    if (!v.matches("[0-9]{1,9}")) {
      throw new IllegalArgumentException(name + " must be a whole number, was '" + v + "'");
    }
    return Integer.parseInt(v);
  }

  private static Path path(String name, String v) {
    if (v.isEmpty()) {
      throw new IllegalArgumentException(name + " must be a file, was empty");
    }
    return Path.of(v);
  }

  private static Duration checkTimeout(String name, Duration d) {
    Objects.requireNonNull(d, name);
    if (d.toMillis() < 1 || d.compareTo(Duration.ofMinutes(10)) > 0) {
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT, "%s must be in [1 ms, 10 min], was %d ms", name, d.toMillis()));
    }
    return d;
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "connectTimeout=%d ms, socketTimeout=%d ms, retries=%d, poolSize=%d, truststore=%s, keystore=%s",
        v.connectTimeout.toMillis(),
        v.socketTimeout.toMillis(),
        v.retries,
        v.poolSize,
        v.truststore,
        v.keystore);
  }
}
