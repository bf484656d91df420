package io.github.probkit.redis;

import io.github.probkit.io.StructureType;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import javax.net.ssl.SSLException;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A connection to one Redis or Valkey (6.2 or later, no modules), or to a Redis Cluster, holding
 * probkit structures. Structures are created and opened by their classes' factories ({@link
 * RedisBloomFilter#create}, ...); this class opens, deletes, exports and imports them by name.
 *
 * <p>Client: Jedis, a synchronous client whose pipelines make one round trip per batch (one per
 * node in a cluster) and which covers standalone, Sentinel, Cluster, TLS and ACL users. {@link
 * #wrap} takes any Jedis client configured by the caller (Sentinel, TLS options, pools).
 *
 * <p>Thread safety: a store and the structures opened through it may be used from many threads at
 * once (each batch borrows its own connection).
 */
public final class RedisStore implements AutoCloseable {
  /** Where the command line takes a password not given in the URI from. */
  private static final String PASSWORD_ENV = "PROBKIT_REDIS_PASSWORD";

  private static final SecureRandom IDS = new SecureRandom();

  private static final String CLAIM =
      "if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end\n"
          + "redis.call('HSET', KEYS[1], unpack(ARGV))\n"
          + "return 1";

  private final UnifiedJedis jedis;
  private final String server;
  private final RedisSettings settings;

  /** Whether the client came from {@link #wrap}, whose timeouts this class does not know. */
  private final boolean wrapped;

  /** Where the password came from, for an authentication failure's message; null: none given. */
  private final String passwordFrom;

  private volatile int batchSize = 1000;
  private volatile int replicasToWait;
  private volatile long waitMillis;

  /** How long opening waits for a structure another client is still creating or importing. */
  volatile long creatingWaitMillis = 30_000;

  private RedisStore(
      UnifiedJedis jedis, String server, RedisSettings settings, String passwordFrom) {
    this.jedis = jedis;
    this.server = server;
    this.settings = settings == null ? RedisSettings.defaults() : settings;
    this.passwordFrom = passwordFrom;
    this.wrapped = settings == null;
  }

  /**
   * Connects to the server, cluster or Sentinel group that {@code uri} names ({@link RedisEndpoint}
   * gives the forms: {@code redis://}, {@code rediss://}, {@code redis+cluster://}, {@code
   * redis+sentinel://}; a KEY in the path is ignored here). A password not given in the URI is
   * taken from {@code password} (may be null: no authentication). The URI's query string ({@code
   * ?socketTimeout=2s&poolSize=64}) overrides {@code settings}. A URI that makes no sense is an
   * {@link IllegalArgumentException} naming the bad part.
   */
  public static RedisStore connect(String uri, String password, RedisSettings settings) {
    RedisEndpoint e = RedisEndpoint.parse(uri);
    RedisSettings s = e.settings(Objects.requireNonNull(settings, "settings"));
    String pass = e.password() != null ? e.password() : password;
    String from =
        e.password() != null
            ? "the URI's user information"
            : password != null
                ? "connect()'s password (the command line's " + PASSWORD_ENV + ")"
                : null;
    JedisClientConfig config = config(e.user(), pass, e.database(), e.tls(), s);
    switch (e.form()) {
      case STANDALONE:
        RedisEndpoint.Node n = e.nodes().get(0);
        return new RedisStore(
            RedisClient.builder()
                .hostAndPort(new HostAndPort(n.host(), n.port()))
                .clientConfig(config)
                .poolConfig(pool(s))
                .build(),
            n.toString(),
            s,
            from);
      case CLUSTER:
        Set<HostAndPort> seeds = new HashSet<>();
        e.nodes().forEach(x -> seeds.add(new HostAndPort(x.host(), x.port())));
        return cluster(config, seeds, e.hostPorts(), s, from);
      default: // SENTINEL
        Set<HostAndPort> sentinels = new LinkedHashSet<>();
        e.nodes().forEach(x -> sentinels.add(new HostAndPort(x.host(), x.port())));
        return sentinel(e.master(), sentinels, e.hostPorts(), config, s, from);
    }
  }

  /** {@link #connect(String, String, RedisSettings)} with the default settings. */
  public static RedisStore connect(String uri, String password) {
    return connect(uri, password, RedisSettings.defaults());
  }

  /**
   * {@link #connect(String, String, RedisSettings)}, no password but the URI's, default settings.
   */
  public static RedisStore connect(String uri) {
    return connect(uri, null);
  }

  /**
   * Connects to a Redis Cluster through any of its nodes ({@code host:port}), with the default
   * settings; {@code redis+cluster://} URIs also set them.
   */
  public static RedisStore cluster(String user, String password, List<String> nodes) {
    Set<HostAndPort> seeds = new HashSet<>();
    for (String n : nodes) {
      seeds.add(HostAndPort.from(n));
    }
    RedisSettings s = RedisSettings.defaults();
    return cluster(
        config(user, password, 0, false, s),
        seeds,
        String.join(",", nodes),
        s,
        password == null ? null : "cluster()'s password");
  }

  private static RedisStore cluster(
      JedisClientConfig config,
      Set<HostAndPort> seeds,
      String names,
      RedisSettings s,
      String passwordFrom) {
    if (seeds.isEmpty()) {
      throw new IllegalArgumentException("a cluster needs at least one node, was none");
    }
    String server = "cluster " + names;
    RedisClusterClient client;
    try {
      client =
          RedisClusterClient.builder()
              .nodes(seeds)
              .clientConfig(config)
              .poolConfig(pool(s))
              .build();
    } catch (JedisException e) {
      // Jedis reads the slot map here, before any store exists to explain its failure
      throw new RedisStoreException(
          server,
          "no node gave the cluster's slot map (a cluster node? reachable? the password?): "
              + e.getMessage()
              + (e.getCause() == null ? "" : " (" + e.getCause().getMessage() + ")"),
          -1,
          e);
    }
    return new RedisStore(client, server, s, passwordFrom);
  }

  /**
   * Connects to the master that the Sentinels at {@code sentinelHostPorts} ({@code host:port}) know
   * as {@code masterName}, following it through failovers. {@code user} and {@code password} (may
   * be null) authenticate to the master and its replicas; the Sentinels are asked without
   * credentials. Writes wait for one replica, at most 1 s ({@link #waitForReplicas}): see
   * docs/REDIS.md, Sentinel, for what that protects and what it does not.
   */
  public static RedisStore sentinel(
      String masterName, List<String> sentinelHostPorts, String user, String password) {
    Set<HostAndPort> sentinels = new LinkedHashSet<>();
    for (String n : sentinelHostPorts) {
      sentinels.add(HostAndPort.from(n));
    }
    RedisSettings s = RedisSettings.defaults();
    return sentinel(
        masterName,
        sentinels,
        String.join(",", sentinelHostPorts),
        config(user, password, 0, false, s),
        s,
        password == null ? null : "sentinel()'s password");
  }

  private static RedisStore sentinel(
      String masterName,
      Set<HostAndPort> sentinels,
      String named,
      JedisClientConfig config,
      RedisSettings s,
      String passwordFrom) {
    if (masterName == null || masterName.isEmpty()) {
      throw new IllegalArgumentException("a Sentinel store needs a master name, was none");
    }
    if (sentinels.isEmpty()) {
      throw new IllegalArgumentException("a Sentinel store needs at least one Sentinel, was none");
    }
    String server = "sentinel " + masterName + " via " + named;
    RedisSentinelClient client;
    try {
      client =
          RedisSentinelClient.builder()
              .masterName(masterName)
              .sentinels(sentinels)
              .clientConfig(config)
              .sentinelClientConfig(config(null, null, 0, false, s))
              .build();
    } catch (JedisException e) {
      throw new RedisStoreException(
          server, "no Sentinel named a master '" + masterName + "': " + e.getMessage(), -1, e);
    }
    return new RedisStore(client, server, s, passwordFrom)
        .waitForReplicas(1, Duration.ofSeconds(1));
  }

  /**
   * A store over a Jedis client the caller configured (Sentinel, TLS, pools); {@code server} names
   * it in error messages. Closing the store closes the client. Retries follow {@link
   * RedisSettings#defaults()}; the client's own configuration decides the rest.
   */
  public static RedisStore wrap(UnifiedJedis jedis, String server) {
    return new RedisStore(jedis, server, null, null);
  }

  private static JedisClientConfig config(
      String user, String password, int database, boolean tls, RedisSettings s) {
    DefaultJedisClientConfig.Builder b =
        DefaultJedisClientConfig.builder()
            .user(user)
            .password(password)
            .database(database)
            .ssl(tls)
            .connectionTimeoutMillis((int) s.connectTimeout().toMillis())
            .socketTimeoutMillis((int) s.socketTimeout().toMillis())
            .clientName("probkit");
    if (tls) {
      b.sslSocketFactory(Tls.socketFactory(s));
    }
    return b.build();
  }

  /**
   * Up to {@code poolSize} connections per node, all kept when idle: commons-pool's defaults (8, 8
   * idle) make threads beyond 8 queue, and close and reopen connections under bursts.
   */
  private static ConnectionPoolConfig pool(RedisSettings s) {
    ConnectionPoolConfig c = new ConnectionPoolConfig();
    c.setMaxTotal(s.poolSize());
    c.setMaxIdle(s.poolSize());
    return c;
  }

  /** The settings this store was connected with. */
  public RedisSettings settings() {
    return settings;
  }

  /** The server named in messages: {@code host:port}, or {@code cluster} and its seed nodes. */
  public String server() {
    return server;
  }

  /** Keys per pipelined round trip (default 1,000). */
  public int batchSize() {
    return batchSize;
  }

  /** Sets the keys per pipelined round trip, in [1, 100000]. */
  public RedisStore batchSize(int keys) {
    if (keys < 1 || keys > 100_000) {
      throw new IllegalArgumentException("batchSize must be in [1, 100000], was " + keys);
    }
    batchSize = keys;
    return this;
  }

  /**
   * Makes every batch that writes (adds, removes, merges) acknowledged only once {@code replicas}
   * replicas have it, waiting at most {@code timeout} ({@code WAIT} in the batch's round trip, on
   * each node it wrote to); 0 replicas turns it off. Default: 0, and 1 replica within 1 s for
   * {@link #sentinel}. A batch that fewer replicas confirmed is not acknowledged: an idempotent one
   * is sent again, another fails (docs/REDIS.md, Batches, atomicity, retries).
   */
  public RedisStore waitForReplicas(int replicas, Duration timeout) {
    if (replicas < 0 || replicas > 64) {
      throw new IllegalArgumentException("replicas must be in [0, 64], was " + replicas);
    }
    long millis = timeout.toMillis();
    if (replicas > 0 && (millis < 1 || millis > 60_000)) {
      throw new IllegalArgumentException(
          "the replicas' timeout must be in [1 ms, 60 s], was " + timeout);
    }
    waitMillis = millis;
    replicasToWait = replicas;
    return this;
  }

  /** The replicas each writing batch waits for (0: none). */
  public int replicasToWait() {
    return replicasToWait;
  }

  /** The Jedis client, for what this library does not cover. */
  public UnifiedJedis jedis() {
    return jedis;
  }

  @Override
  public void close() {
    jedis.close();
  }

  // ---- by name

  /** Whether a structure of this name exists (complete or still being created). */
  public boolean exists(String name) {
    checkName(name);
    return read(() -> jedis.exists(Layout.SLOT.metaKey(name)));
  }

  /** Opens the structure of this name, whatever its type; fails when there is none. */
  public RedisStructure open(String name) {
    Meta meta = readMeta(name);
    if (meta == null) {
      throw new RedisStoreException(
          server,
          "no probkit structure named '"
              + name
              + "' (key '"
              + Layout.SLOT.metaKey(name)
              + "' does not exist)");
    }
    return RedisStructure.of(this, name, meta);
  }

  /**
   * Deletes the structure: its metadata first (so that no one opens it any more), then its data (so
   * that batches of clients that have it open fail). Returns whether it existed. Metadata that
   * cannot be parsed is deleted too (its data strings, unknown, stay until a structure of the same
   * name is created); a hash that is not probkit's at all ({@code probkit} field missing) is
   * refused.
   */
  public boolean delete(String name) {
    checkName(name);
    String metaKey = Layout.SLOT.metaKey(name);
    Map<String, String> fields = metaFields(metaKey);
    if (fields.isEmpty()) {
      return false;
    }
    if (!fields.containsKey("probkit")) {
      Meta.parse(server, metaKey, fields); // refuses a hash that is not probkit's
    }
    Meta meta;
    try {
      meta = Meta.parse(server, metaKey, fields);
    } catch (RedisStoreException damaged) {
      call(() -> jedis.unlink(metaKey));
      return true;
    }
    deleteIfId(name, meta);
    return true;
  }

  /**
   * Deletes the metadata and data of structure {@code name} as {@code meta} describes it, leaving
   * alone every key that belongs to a structure of the same name created since (its id differs).
   */
  private void deleteIfId(String name, Meta meta) {
    String metaKey = Layout.SLOT.metaKey(name);
    eval(Scripts.IF_ID, List.of(metaKey), List.of("delete", meta.id));
    // The strings without an id (counts, total) are decided by the first shard: delete them first.
    String first = meta.layout.shardKey(name, 0);
    String firstLength = Long.toString(meta.shardLength(0));
    List<String> shards = new ArrayList<>();
    for (String k : RedisStructure.dataKeys(name, meta)) {
      String shard = RedisStructure.shardOf(name, meta, k);
      if (shard != null) {
        // A heavy-hitters slice's items, decided by its slot's id, deleted before it.
        eval(
            Scripts.DROP_DATA,
            List.of(k, shard),
            List.of(meta.id, Long.toString(meta.shardLength(0))));
        continue;
      }
      if (k.equals(RedisScalableBloomFilter.countsKey(name))
          || k.equals(RedisCountMinSketch.totalKey(name))) {
        eval(Scripts.DROP_DATA, List.of(k, first), List.of(meta.id, firstLength));
      } else {
        shards.add(k);
      }
    }
    for (int i = 0; i < shards.size(); i++) {
      String k = shards.get(i);
      // A scalable filter's layers differ in size: its id sits at the string's end.
      String length =
          meta.type == StructureType.SCALABLE_BLOOM_FILTER
              ? Long.toString(Math.max(0, read(() -> jedis.strlen(k)) - RedisStructure.ID_BYTES))
              : Long.toString(meta.shardLength(i));
      eval(Scripts.DROP_DATA, List.of(k, k), List.of(meta.id, length));
    }
  }

  /**
   * Writes the structure as a probkit file (docs/FORMAT.md), byte for byte what the library writes.
   */
  public void exportTo(String name, OutputStream out) throws IOException {
    open(name).exportTo(out);
  }

  /**
   * Creates structure {@code name} from a probkit file, validated whole by the library's reader
   * before anything is written; readers see it only once every byte is in Redis.
   */
  public RedisStructure importFrom(String name, InputStream in, RedisOptions options)
      throws IOException {
    checkName(name);
    return Import.run(this, name, new BufferedInputStream(in, 1 << 16), options);
  }

  // ---- metadata

  /**
   * The structure that a URI names (its KEY, decoded; see {@link RedisEndpoint}), or null when it
   * names none; {@link #connect} ignores that part.
   */
  public static String keyOf(String uri) {
    return RedisEndpoint.parse(uri).key();
  }

  /**
   * Refuses a structure name that makes no sense before anything is written: 1 to 512 characters
   * without braces (Redis Cluster's hash tags), spaces or control characters.
   */
  public static void checkName(String name) {
    boolean ok = name != null && !name.isEmpty() && name.length() <= 512;
    for (int i = 0; ok && i < name.length(); i++) {
      char c = name.charAt(i);
      ok = c > ' ' && c != 0x7f && c != '{' && c != '}';
    }
    if (!ok) {
      throw new IllegalArgumentException(
          "name must be 1 to 512 characters without braces, spaces or control characters, was "
              + (name == null ? "null" : "'" + name + "'"));
    }
  }

  /** The fields of metadata key {@code key} (none when it does not exist). */
  private Map<String, String> metaFields(String key) {
    try {
      return read(() -> jedis.hgetAll(key));
    } catch (RedisStoreException e) {
      if (e.getCause() instanceof JedisDataException
          && e.getCause().getMessage().startsWith("WRONGTYPE")) {
        throw new RedisStoreException(
            server,
            "key '"
                + key
                + "' holds a "
                + read(() -> jedis.type(key))
                + ", not probkit metadata (a hash)");
      }
      throw e;
    }
  }

  /** The metadata of {@code name}, or null; waits while another client is creating it. */
  Meta readMeta(String name) {
    checkName(name);
    String key = Layout.SLOT.metaKey(name);
    long deadline = System.nanoTime() + creatingWaitMillis * 1_000_000;
    while (true) {
      Map<String, String> fields = metaFields(key);
      if (fields.isEmpty()) {
        return null;
      }
      Meta meta = Meta.parse(server, key, fields);
      if (meta.ready) {
        return meta;
      }
      if (System.nanoTime() > deadline) {
        throw new RedisStoreException(
            server,
            "structure '"
                + name
                + "' has been in state 'creating' for "
                + creatingWaitMillis / 1000.0
                + " s: another client is still creating or importing it, or died "
                + "doing so (then delete it)");
      }
      sleep(50);
    }
  }

  /**
   * Creates structure {@code name} as {@code wanted} describes: claims the name atomically (state
   * creating), sizes each data string once at its final length, runs {@code fill} (imports write
   * the data there), and marks it ready. An existing structure is opened when {@code openIfExists}
   * and of the same shape, and refused otherwise.
   */
  Meta create(String name, Meta wanted, boolean openIfExists, Consumer<Meta> fill) {
    checkName(name);
    String metaKey = Layout.SLOT.metaKey(name);
    Meta claimed = wanted.withId(String.format(Locale.ROOT, "%016x", IDS.nextLong()), false);
    List<String> argv = new ArrayList<>();
    claimed
        .fields()
        .forEach(
            (k, v) -> {
              argv.add(k);
              argv.add(v);
            });
    Object won;
    try {
      won = call(() -> jedis.eval(CLAIM, List.of(metaKey), argv));
    } catch (RedisStoreException e) {
      if (e.getCause() != null
          && String.valueOf(e.getCause().getMessage()).startsWith("WRONGTYPE")) {
        throw new RedisStoreException(
            server, "key '" + metaKey + "' exists and is not probkit metadata");
      }
      throw e;
    }
    if (!Long.valueOf(1).equals(won)) {
      Meta existing = readMeta(name);
      if (existing == null) {
        return create(name, wanted, openIfExists, fill); // deleted meanwhile
      }
      if (openIfExists && existing.sameShape(wanted)) {
        return existing;
      }
      throw new RedisStoreException(
          server,
          "structure '"
              + name
              + "' exists: "
              + existing.describe()
              + (existing.sameShape(wanted) ? "" : "; asked for " + wanted.describe()));
    }
    try {
      // Strings left by an earlier structure of this name, whose metadata was lost: presize
      // replaces the shards and the fixed strings, and a scalable filter's higher layers go here.
      for (String key : RedisStructure.dataKeys(name, claimed)) {
        if ((claimed.type == StructureType.SCALABLE_BLOOM_FILTER
                && !key.equals(RedisScalableBloomFilter.countsKey(name))
                && !key.equals(claimed.layout.shardKey(name, 0)))
            || RedisStructure.shardOf(name, claimed, key) != null) {
          eval(Scripts.IF_ID, List.of(metaKey, key), List.of("drop", claimed.id));
        }
      }
      RedisStructure.presize(this, name, claimed);
      if (fill != null) {
        fill.accept(claimed);
      }
      Object marked = eval(Scripts.IF_ID, List.of(metaKey), List.of("ready", claimed.id));
      if (!Long.valueOf(1).equals(marked)) {
        throw replacedWhileCreating(name);
      }
    } catch (RuntimeException e) {
      try {
        deleteIfId(name, claimed);
      } catch (RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    return claimed.withId(claimed.id, true);
  }

  /** The error of a create or import whose structure was deleted or re-created meanwhile. */
  RedisStoreException replacedWhileCreating(String name) {
    return new RedisStoreException(
        server,
        "structure '"
            + name
            + "' was deleted or re-created by another client while this one was creating it; "
            + "nothing more was written to it");
  }

  /** Runs {@code script} on string keys and arguments. */
  Object eval(byte[] script, List<String> keys, List<String> args) {
    List<byte[]> k = new ArrayList<>();
    keys.forEach(x -> k.add(RedisStructure.bytes(x)));
    List<byte[]> a = new ArrayList<>();
    args.forEach(x -> a.add(RedisStructure.bytes(x)));
    return call(() -> jedis.eval(script, k, a));
  }

  boolean isCluster() {
    return jedis instanceof RedisClusterClient;
  }

  // ---- commands and batches

  interface Call<T> {
    T run();
  }

  /** Runs one command, turning a Jedis failure into the one clear error. */
  <T> T call(Call<T> c) {
    try {
      return c.run();
    } catch (JedisException e) {
      refreshTopology(e);
      throw failure("", e, -1, 0);
    }
  }

  /** Runs one command that writes nothing, retried as batches are (docs/REDIS.md's table). */
  <T> T read(Call<T> c) {
    for (int attempt = 1; ; attempt++) {
      try {
        return c.run();
      } catch (JedisException e) {
        if (attempt > settings.retries() || !transientFailure(e)) {
          refreshTopology(e);
          throw failure("", e, -1, 0);
        }
        backOff(attempt);
        refreshTopology(e);
      }
    }
  }

  /**
   * Runs one pipelined batch of {@code size} keys: {@code queue} adds each key's commands (calling
   * {@link Batch#endKey} after each); every command runs in a guarded script (guard.lua), so that a
   * batch against a structure deleted or re-created meanwhile, or whose strings were evicted, fails
   * before writing. {@code before}: the keys of the same call in earlier batches, all acknowledged
   * (for the message).
   *
   * <p>A transient failure (lost connection, timeout, failover, too few replicas) is retried, the
   * topology refreshed first in a cluster, when sending the batch again cannot apply it twice: the
   * batch is idempotent, or it was certainly not applied (its one write command was refused by an
   * error reply such as {@code READONLY} or {@code NOREPLICAS}, or its connection never opened).
   * Otherwise it fails with the count of keys acknowledged.
   */
  Batch run(
      RedisStructure s,
      String what,
      boolean idempotent,
      int before,
      int size,
      Consumer<Batch> queue) {
    for (int attempt = 1; ; attempt++) {
      AbstractPipeline pipe = null;
      Batch b = null;
      try {
        pipe = jedis.pipelined();
        b = new Batch(pipe, s, replicasToWait, waitMillis);
        b.retried = attempt > 1;
        queue.accept(b);
        b.flush();
        pipe.sync();
        afterSync.run();
        String stale = b.failedCheck();
        if (stale != null) {
          throw new RedisStoreException(
              server, what + " of " + size + " keys failed: " + stale + "; no answer was given");
        }
        int ok = b.acknowledged();
        if (ok < b.keys()) {
          b.throwReplyOf(ok);
        }
        String unreplicated = b.unreplicated();
        if (unreplicated != null) {
          throw new NotReplicated(unreplicated);
        }
        return b;
      } catch (JedisException e) {
        boolean notApplied =
            b == null
                || b.writes() <= 1 && b.acknowledged() == 0 && (refused(e) || neverConnected(e));
        boolean retry =
            attempt <= settings.retries() && transientFailure(e) && (idempotent || notApplied);
        if (!retry) {
          refreshTopology(e); // for the next batch
          int ok = b == null || e instanceof NotReplicated ? 0 : b.acknowledged();
          String more =
              idempotent || notApplied || e instanceof JedisDataException && ok == 0
                  ? ""
                  : ", and not sent again, which could apply it twice: it may have been applied"
                      + " (a script runs to its end after the client stops waiting), so check"
                      + " the structure before running it again";
          throw failure(what + " of " + size + " keys", e, ok, before, more);
        }
        backOff(attempt);
        refreshTopology(e); // once the failover had time to happen
      } finally {
        if (pipe != null) {
          try {
            pipe.close();
          } catch (RuntimeException ignored) {
            // the batch's outcome is decided above; a broken connection is dropped by the pool
          }
        }
      }
    }
  }

  /** Run after each batch's round trip: tests lose its reply there. */
  static volatile Runnable afterSync = () -> {};

  /** 0.4, 1.6, 6.4 s, then 6.4 s each: long enough for a cluster's or Sentinel's failover. */
  private static void backOff(int attempt) {
    sleep(Math.min(100L << (2 * Math.min(attempt, 3)), 6_400));
  }

  /** Asks a cluster for its slot map again after a failure that may mean it changed. */
  private void refreshTopology(JedisException e) {
    if (jedis instanceof RedisClusterClient
        && (e instanceof JedisConnectionException
            || startsWith(e, "MOVED", "ASK", "CLUSTERDOWN", "TRYAGAIN"))) {
      try {
        ((RedisClusterClient) jedis).refreshClusterTopology();
      } catch (JedisException stillDown) {
        // the next attempt reports it
      }
    }
  }

  /** A batch that its replicas did not all confirm in time ({@link #waitForReplicas}). */
  static final class NotReplicated extends JedisException {
    private static final long serialVersionUID = 1L;

    NotReplicated(String message) {
      super(message);
    }
  }

  private static boolean transientFailure(JedisException e) {
    if (Tls.find(e) != null) {
      return false; // a handshake fails the same way again
    }
    return e instanceof JedisConnectionException
        || e instanceof NotReplicated
        || refused(e)
        || e.getCause() instanceof java.net.SocketTimeoutException;
  }

  /**
   * An error reply by which Redis refused a command without running it: a replica, a server still
   * loading, a master without its replicas, a slot elsewhere or moving, a server running another
   * client's script past busy-reply-threshold.
   */
  private static boolean refused(JedisException e) {
    return e instanceof JedisDataException
        && startsWith(
            e,
            "READONLY",
            "NOREPLICAS",
            "LOADING",
            "MASTERDOWN",
            "MOVED",
            "ASK",
            "TRYAGAIN",
            "CLUSTERDOWN",
            "BUSY");
  }

  /** A connection that failed to open: nothing was sent on it. */
  private static boolean neverConnected(JedisException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConnectException) {
        return true;
      }
    }
    return false;
  }

  private static boolean startsWith(JedisException e, String... prefixes) {
    String m = String.valueOf(e.getMessage());
    for (String p : prefixes) {
      if (m.startsWith(p + " ") || m.equals(p)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The one clear error for a Jedis failure; {@code acknowledged} is -1 outside a batch, {@code
   * before} the keys of the same call in earlier batches.
   */
  RedisStoreException failure(String what, JedisException e, int acknowledged, int before) {
    return failure(what, e, acknowledged, before, "");
  }

  /** {@link #failure}, {@code more} appended to the message. */
  private RedisStoreException failure(
      String what, JedisException e, int acknowledged, int before, String more) {
    String m = String.valueOf(e.getMessage());
    String refused = refusal(e);
    String why;
    SSLException tls = Tls.find(e);
    if (tls != null) {
      why = Tls.why(tls, settings);
    } else if (refused != null) {
      why = notAllowed(refused);
    } else if (timedOut(e)) {
      why =
          "timed out: no reply within the socket timeout"
              + (wrapped ? "" : " of " + settings.socketTimeout().toMillis() + " ms")
              + " (the server accepted the connection but did not answer in time)";
    } else if (e instanceof JedisConnectionException) {
      why = "unreachable or timed out (" + m + ")";
    } else if (m.startsWith("PROBKIT ")) {
      int script = m.indexOf(" script: ");
      why = m.substring("PROBKIT ".length(), script < 0 ? m.length() : script);
    } else if (m.startsWith("OOM")) {
      why = "out of memory: " + m;
    } else if (m.startsWith("WRONGTYPE")) {
      why = "a key of this structure holds another Redis type: " + m;
    } else if (m.startsWith("READONLY")) {
      why = "a read-only replica answered (failover?): " + m;
    } else if (m.contains("DB index is out of range")) {
      why =
          "the URI's database does not exist on this server ("
              + m
              + "); a KEY with a '/' after digits is written with %2F";
    } else if (m.startsWith("BUSY")) {
      why =
          "the server is running another client's script past its busy-reply-threshold (a large"
              + " merge?) and refused this: "
              + m;
    } else if (m.startsWith("NOREPLICAS")) {
      why = "the master has too few replicas (min-replicas-to-write; failover?): " + m;
    } else if (e instanceof NotReplicated) {
      why = "applied by the master but " + m + ", so not acknowledged (a failover may lose it)";
    } else {
      why = m;
    }
    String ack =
        acknowledged < 0
            ? ""
            : "; "
                + acknowledged
                + " keys of the batch were acknowledged"
                + (before == 0
                    ? ""
                    : " (and the " + before + " keys of the call's earlier batches)");
    return new RedisStoreException(
        server, (what.isEmpty() ? "" : what + " failed: ") + why + more + ack, acknowledged, e);
  }

  private static final String SCRIPT_NOPERM = "user executing the script can't run this command";

  /** The NOAUTH, WRONGPASS or NOPERM reply among {@code e}'s causes, or null. */
  private static String refusal(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String m = String.valueOf(t.getMessage());
      if (m.startsWith("NOAUTH") || m.startsWith("WRONGPASS") || m.startsWith("NOPERM")) {
        return m;
      }
      // A command a script calls that the ACL denies is an ERR reply, not a NOPERM one.
      if (m.contains(SCRIPT_NOPERM)) {
        return "NOPERM " + m;
      }
    }
    return null;
  }

  private String notAllowed(String reply) {
    if (reply.startsWith("NOPERM")) {
      return "not allowed: " + reply + " (docs/REDIS.md gives the ACL rules a probkit user needs)";
    }
    return "authentication failed: "
        + reply
        + "; "
        + (passwordFrom == null
            ? "no password was given"
            : "the password was taken from " + passwordFrom)
        + " (a password is given in the URI's user information, redis://USER:PASSWORD@host/KEY,"
        + " percent-encoded, or on the command line in "
        + PASSWORD_ENV
        + ")";
  }

  private static boolean timedOut(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.net.SocketTimeoutException) {
        return true;
      }
    }
    return false;
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
