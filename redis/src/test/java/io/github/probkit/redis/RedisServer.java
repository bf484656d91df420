package io.github.probkit.redis;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real redis-server on a free loopback port in a temporary directory, started and stopped by the
 * tests. The binary is $PROBKIT_REDIS_SERVER or redis-server on the PATH; without one the tests are
 * skipped, unless -Dprobkit.redis.required=true (set by .ci/run), which makes them fail.
 */
public final class RedisServer implements AutoCloseable {
  private final Path binary;
  private final Path dir;
  private final int port;
  private final List<String> args;
  private Process process;

  private RedisServer(Path binary, Path dir, int port, List<String> args) {
    this.binary = binary;
    this.dir = dir;
    this.port = port;
    this.args = args;
  }

  /** The redis-server binary, or null. */
  static Path binary() {
    String env = System.getenv("PROBKIT_REDIS_SERVER");
    if (env != null && !env.isEmpty()) {
      return Files.isExecutable(Path.of(env)) ? Path.of(env) : null;
    }
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path p = Path.of(d, "redis-server");
      if (!d.isEmpty() && Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }

  /** Skips the calling test class when there is no redis-server, or fails when one is required. */
  static Path requireBinary() {
    Path b = binary();
    if (b == null) {
      String why =
          "no redis-server: set PROBKIT_REDIS_SERVER or put redis-server on the PATH "
              + "(Debian: apt-get install redis-server)";
      if (Boolean.getBoolean("probkit.redis.required")) {
        fail(why + "; -Dprobkit.redis.required=true makes this a failure");
      }
      System.err.println(why + "; the Redis tests are skipped");
      assumeTrue(false, why + "; the Redis tests are skipped");
    }
    return b;
  }

  /** Starts a server with persistence off, plus {@code extra} configuration arguments. */
  public static RedisServer start(String... extra) throws IOException {
    Path binary = requireBinary();
    Path dir = Files.createTempDirectory("probkit-redis-");
    int port = freePort();
    List<String> args =
        new ArrayList<>(
            List.of(
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--dir",
                dir.toString(),
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
                "--logfile",
                "redis.log"));
    args.addAll(List.of(extra));
    RedisServer s = new RedisServer(binary, dir, port, args);
    s.launch();
    return s;
  }

  /**
   * Starts a Sentinel (redis-server --sentinel) that monitors master {@code name} at {@code
   * masterPort} with a quorum of 2, marking it down after 1 s without an answer.
   */
  static RedisServer sentinel(String name, int masterPort) throws IOException {
    Path binary = requireBinary();
    Path dir = Files.createTempDirectory("probkit-sentinel-");
    int port = freePort();
    Path conf = dir.resolve("sentinel.conf");
    Files.writeString(
        conf,
        String.join(
            "\n",
            "port " + port,
            "bind 127.0.0.1",
            "dir " + dir,
            "logfile sentinel.log",
            "sentinel monitor " + name + " 127.0.0.1 " + masterPort + " 2",
            "sentinel down-after-milliseconds " + name + " 1000",
            "sentinel failover-timeout " + name + " 10000",
            "sentinel parallel-syncs " + name + " 1",
            ""));
    RedisServer s = new RedisServer(binary, dir, port, List.of(conf.toString(), "--sentinel"));
    s.launch();
    return s;
  }

  /** A free port whose cluster bus port (+10000) is free too. */
  static int freePort() throws IOException {
    for (int attempt = 0; attempt < 100; attempt++) {
      int port;
      try (ServerSocket s = new ServerSocket(0)) {
        port = s.getLocalPort();
      }
      if (port < 55535 && free(port + 10000)) {
        return port;
      }
    }
    throw new IOException("no free port pair found");
  }

  private static boolean free(int port) {
    try (ServerSocket s = new ServerSocket(port)) {
      return s.getLocalPort() == port;
    } catch (IOException e) {
      return false;
    }
  }

  void launch() throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(binary.toString());
    cmd.addAll(args);
    process =
        new ProcessBuilder(cmd)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("stdout.log").toFile())
            .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 200);
        s.getOutputStream().write("PING\r\n".getBytes());
        byte[] b = new byte[7];
        if (s.getInputStream().read(b) > 0 && new String(b).startsWith("+PONG")) {
          return;
        }
      } catch (IOException e) {
        // not up yet
      }
      if (!process.isAlive()) {
        throw new IOException("redis-server exited with " + process.exitValue() + ": " + log());
      }
      sleep(50);
    }
    throw new IOException("redis-server did not answer PING within 20 s: " + log());
  }

  String log() {
    try {
      Path l =
          dir.resolve(Files.exists(dir.resolve("sentinel.log")) ? "sentinel.log" : "redis.log");
      return Files.exists(l) ? Files.readString(l) : Files.readString(dir.resolve("stdout.log"));
    } catch (IOException e) {
      return e.toString();
    }
  }

  int port() {
    return port;
  }

  long pid() {
    return process.pid();
  }

  public String hostPort() {
    return "127.0.0.1:" + port;
  }

  public String uri() {
    return "redis://127.0.0.1:" + port;
  }

  Path dir() {
    return dir;
  }

  /** Kills the server at once (SIGKILL): no shutdown save. */
  void kill() {
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops it gracefully (SIGTERM: Redis saves what its configuration says to). */
  void stop() {
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        kill();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Starts the server again, on the same port and directory. */
  void restart() throws IOException {
    launch();
  }

  @Override
  public void close() {
    kill();
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind is harmless
    }
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
