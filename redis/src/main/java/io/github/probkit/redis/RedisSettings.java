package io.github.probkit.redis;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

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

  private static final RedisSettings DEFAULTS =
      new RedisSettings(
          Duration.ofSeconds(2), Duration.ofSeconds(10), 3, 32, null, null, null, null);

  private final Duration connectTimeout;
  private final Duration socketTimeout;
  private final int retries;
  private final int poolSize;
  private final Path truststore;
  private final String truststorePassword;
  private final Path keystore;
  private final String keystorePassword;

  private RedisSettings(
      Duration connectTimeout,
      Duration socketTimeout,
      int retries,
      int poolSize,
      Path truststore,
      String truststorePassword,
      Path keystore,
      String keystorePassword) {
    this.connectTimeout = connectTimeout;
    this.socketTimeout = socketTimeout;
    this.retries = retries;
    this.poolSize = poolSize;
    this.truststore = truststore;
    this.truststorePassword = truststorePassword;
    this.keystore = keystore;
    this.keystorePassword = keystorePassword;
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
    return new RedisSettings(
        checkTimeout("connectTimeout", timeout),
        socketTimeout,
        retries,
        poolSize,
        truststore,
        truststorePassword,
        keystore,
        keystorePassword);
  }

  /** How long a command or batch waits for the server's reply, in [1 ms, 10 min]. */
  public RedisSettings socketTimeout(Duration timeout) {
    return new RedisSettings(
        connectTimeout,
        checkTimeout("socketTimeout", timeout),
        retries,
        poolSize,
        truststore,
        truststorePassword,
        keystore,
        keystorePassword);
  }

  /**
   * How many times an idempotent batch is sent again after a lost connection, a timeout or a
   * failover, in [0, 10]; waits of 0.4, 1.6, then 6.4 s between attempts.
   */
  public RedisSettings retries(int retries) {
    if (retries < 0 || retries > 10) {
      throw new IllegalArgumentException("retries must be in [0, 10], was " + retries);
    }
    return new RedisSettings(
        connectTimeout,
        socketTimeout,
        retries,
        poolSize,
        truststore,
        truststorePassword,
        keystore,
        keystorePassword);
  }

  /**
   * The most connections kept to one node, in [1, 1024]: threads beyond it wait for a connection.
   */
  public RedisSettings poolSize(int connections) {
    if (connections < 1 || connections > 1024) {
      throw new IllegalArgumentException("poolSize must be in [1, 1024], was " + connections);
    }
    return new RedisSettings(
        connectTimeout,
        socketTimeout,
        retries,
        connections,
        truststore,
        truststorePassword,
        keystore,
        keystorePassword);
  }

  /**
   * The certificates trusted for TLS ({@code rediss://}): a PKCS#12 or JKS file, and its password
   * (may be null), instead of the JVM's default truststore.
   */
  public RedisSettings truststore(Path file, String password) {
    return new RedisSettings(
        connectTimeout,
        socketTimeout,
        retries,
        poolSize,
        Objects.requireNonNull(file, "truststore"),
        password,
        keystore,
        keystorePassword);
  }

  /**
   * The client certificate and its key for TLS, for servers that require one ({@code
   * tls-auth-clients yes}): a PKCS#12 or JKS file, and its password.
   */
  public RedisSettings keystore(Path file, String password) {
    return new RedisSettings(
        connectTimeout,
        socketTimeout,
        retries,
        poolSize,
        truststore,
        truststorePassword,
        Objects.requireNonNull(file, "keystore"),
        password);
  }

  public Duration connectTimeout() {
    return connectTimeout;
  }

  public Duration socketTimeout() {
    return socketTimeout;
  }

  public int retries() {
    return retries;
  }

  public int poolSize() {
    return poolSize;
  }

  /** The truststore file, or null for the JVM's default. */
  public Path truststore() {
    return truststore;
  }

  String truststorePassword() {
    return truststorePassword;
  }

  /** The client certificate's keystore file, or null for none. */
  public Path keystore() {
    return keystore;
  }

  String keystorePassword() {
    return keystorePassword;
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
        connectTimeout.toMillis(),
        socketTimeout.toMillis(),
        retries,
        poolSize,
        truststore,
        keystore);
  }
}
