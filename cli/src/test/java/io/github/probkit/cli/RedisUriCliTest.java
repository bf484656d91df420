package io.github.probkit.cli;

import static io.github.probkit.cli.Cli.ok;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The URIs the commands pass to probkit-redis, against a real redis-server with a password: a
 * digit-only KEY, a '+' in a password, a missing password, a bad setting.
 */
class RedisUriCliTest extends WithRedisServer {
  private static final String ADMIN = "admin-pw";
  private static int port;

  @BeforeAll
  static void addUsers() throws IOException {
    port = Integer.parseInt(server.hostPort().substring(server.hostPort().indexOf(':') + 1));
    try (Jedis j = new Jedis("127.0.0.1", port)) {
      j.aclSetUser("plus", "on", ">p+ss", "~*", "+@all");
      j.configSet("requirepass", ADMIN);
    }
  }

  @Test
  void aDigitOnlyKeyIsAStructureInDatabaseZero() {
    String uri = "redis://:" + ADMIN + "@127.0.0.1:" + port + "/2024";
    ok("filter", "create", uri, "--expected", "100", "--fpp", "0.01");
    ok("filter", "add", uri, "a", "b");
    assertThat(ok("filter", "query", uri, "a", "b").out).isEqualTo("a\tpresent\nb\tpresent\n");
    try (Jedis j = new Jedis("127.0.0.1", port)) {
      j.auth(ADMIN);
      assertThat(j.exists("{2024}")).isTrue();
      j.del("{2024}", "{2024}:0");
    }
  }

  @Test
  void aPlusInAPasswordIsAPlus() {
    String uri = "redis://plus:p+ss@127.0.0.1:" + port + "/plus";
    ok("hll", "create", uri);
    ok("hll", "add", uri, "a", "b", "c");
    assertThat(ok("hll", "count", uri).out).isEqualTo("3\n");
  }

  @Test
  void aMissingPasswordSaysWhereOneGoes() {
    Cli c = Cli.run("filter", "query", "redis://127.0.0.1:" + port + "/x", "k");
    assertThat(c.exit).as(c.toString()).isEqualTo(1);
    assertThat(c.err)
        .startsWith("probkit: redis 127.0.0.1:" + port + ": authentication failed: NOAUTH")
        .contains("PROBKIT_REDIS_PASSWORD");
    assertThat(c.err.lines()).hasSize(1);
  }

  @Test
  void clusterAndSentinelUrisGoToRedisNotToAFile() {
    // This server is no cluster and no Sentinel: the point is that the URI reached probkit-redis
    // (one line from Redis) and was not read as a file named "redis+cluster:/...".
    for (String uri :
        new String[] {
          "redis+cluster://:" + ADMIN + "@127.0.0.1:" + port + "/x",
          "redis+sentinel://mymaster@127.0.0.1:" + port + "/x"
        }) {
      Cli c = Cli.run("filter", "query", uri, "k");
      assertThat(c.exit).as(c.toString()).isEqualTo(1);
      assertThat(c.err).as(uri).startsWith("probkit: redis").doesNotContain(ADMIN);
      assertThat(c.err.lines()).hasSize(1);
    }
  }

  @Test
  void aBadSettingIsOneLineNamingIt() {
    Cli c = Cli.run("filter", "query", "redis://127.0.0.1:" + port + "/x?poolSize=0", "k");
    assertThat(c.exit).as(c.toString()).isNotZero();
    assertThat(c.err).contains("poolSize must be in [1, 1024], was 0");
    assertThat(c.err.lines()).hasSize(1);
  }
}
