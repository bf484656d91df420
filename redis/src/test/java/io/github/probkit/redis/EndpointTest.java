package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Redis URIs: what is accepted, and what is refused before connecting (no server needed). */
class EndpointTest {
  @Test
  void theUriFormsAreParsed() {
    RedisEndpoint e = RedisEndpoint.parse("redis://localhost");
    assertThat(e.form()).isEqualTo(RedisEndpoint.Form.STANDALONE);
    assertThat(e.nodes()).containsExactly(new RedisEndpoint.Node("localhost", 6379));
    assertThat(e.database()).isZero();
    assertThat(e.tls()).isFalse();
    assertThat(e.user()).isNull();
    assertThat(e.password()).isNull();
    assertThat(e.key()).isNull();

    e = RedisEndpoint.parse("rediss://crawler:s%3Acret@cache.internal:6380/3/urls");
    assertThat(e.nodes()).containsExactly(new RedisEndpoint.Node("cache.internal", 6380));
    assertThat(e.user()).isEqualTo("crawler");
    assertThat(e.password()).isEqualTo("s:cret");
    assertThat(e.database()).isEqualTo(3);
    assertThat(e.tls()).isTrue();
    assertThat(e.key()).isEqualTo("urls");

    e = RedisEndpoint.parse("redis://alice@127.0.0.1/urls");
    assertThat(e.user()).isEqualTo("alice");
    assertThat(e.password()).isNull();
    assertThat(e.database()).isZero();
    assertThat(e.key()).isEqualTo("urls");
  }

  @Test
  void aPlusInThePasswordIsAPlus() {
    RedisEndpoint e = RedisEndpoint.parse("redis://probkit:a+b%2Bc%20d@h/k");
    assertThat(e.password()).isEqualTo("a+b+c d");
    assertThat(RedisEndpoint.parse("redis://u+v@h/a+b").user()).isEqualTo("u+v");
    assertThat(RedisStore.keyOf("redis://h/a+b")).isEqualTo("a+b");
    assertThat(RedisEndpoint.parse("redis://:p%40ss%3Aw0rd@h").password()).isEqualTo("p@ss:w0rd");
    assertThat(RedisEndpoint.parse("redis://:%C3%A9t%C3%A9@h").password()).isEqualTo("été");
  }

  @Test
  void hostNamesWithUnderscoresAndIpv6LiteralsAreAccepted() {
    assertThat(RedisEndpoint.parse("redis://redis_cache_1:6380/k").nodes())
        .containsExactly(new RedisEndpoint.Node("redis_cache_1", 6380));
    RedisEndpoint v6 = RedisEndpoint.parse("redis://[::1]:7000/k");
    assertThat(v6.nodes()).containsExactly(new RedisEndpoint.Node("::1", 7000));
    assertThat(v6.hostPorts()).isEqualTo("[::1]:7000");
    assertThat(RedisEndpoint.parse("rediss://[2001:db8::7]/k").nodes())
        .containsExactly(new RedisEndpoint.Node("2001:db8::7", 6379));
  }

  @Test
  void aDigitOnlyKeyIsAKeyAndTheDatabaseIsExplicit() {
    RedisEndpoint e = RedisEndpoint.parse("redis://h/2024");
    assertThat(e.key()).isEqualTo("2024");
    assertThat(e.database()).isZero();

    e = RedisEndpoint.parse("redis://h/2024?db=2");
    assertThat(e.key()).isEqualTo("2024");
    assertThat(e.database()).isEqualTo(2);

    e = RedisEndpoint.parse("redis://h/2/2024");
    assertThat(e.key()).isEqualTo("2024");
    assertThat(e.database()).isEqualTo(2);

    e = RedisEndpoint.parse("redis://h/2024%2F01");
    assertThat(e.key()).isEqualTo("2024/01");
    assertThat(e.database()).isZero();

    e = RedisEndpoint.parse("redis://h/logs/2024");
    assertThat(e.key()).isEqualTo("logs/2024");
    assertThat(e.database()).isZero();

    e = RedisEndpoint.parse("redis://h/5/");
    assertThat(e.key()).isNull();
    assertThat(e.database()).isEqualTo(5);

    assertThatThrownBy(() -> RedisEndpoint.parse("redis://h/3/k?db=3"))
        .hasMessageContaining("database is given twice");
  }

  @Test
  void theClusterAndSentinelFormsNameTheirNodes() {
    RedisEndpoint c =
        RedisEndpoint.parse("redis+cluster://u:p@h1:7000,h_2:7001,[::1]:7002/urls?poolSize=64");
    assertThat(c.form()).isEqualTo(RedisEndpoint.Form.CLUSTER);
    assertThat(c.tls()).isFalse();
    assertThat(c.nodes())
        .containsExactly(
            new RedisEndpoint.Node("h1", 7000),
            new RedisEndpoint.Node("h_2", 7001),
            new RedisEndpoint.Node("::1", 7002));
    assertThat(c.key()).isEqualTo("urls");
    assertThat(c.user()).isEqualTo("u");
    assertThat(c.password()).isEqualTo("p");
    assertThat(c.settings(RedisSettings.defaults()).poolSize()).isEqualTo(64);
    assertThat(RedisEndpoint.parse("rediss+cluster://h1:7000/k").tls()).isTrue();
    assertThatThrownBy(() -> RedisEndpoint.parse("redis+cluster://h1:7000/2/k"))
        .hasMessageContaining("a cluster has database 0 only, was 2");

    RedisEndpoint s = RedisEndpoint.parse("redis+sentinel://u:p%40@mymaster@s1,s2:26380/1/urls");
    assertThat(s.form()).isEqualTo(RedisEndpoint.Form.SENTINEL);
    assertThat(s.master()).isEqualTo("mymaster");
    assertThat(s.user()).isEqualTo("u");
    assertThat(s.password()).isEqualTo("p@");
    assertThat(s.nodes())
        .containsExactly(new RedisEndpoint.Node("s1", 26379), new RedisEndpoint.Node("s2", 26380));
    assertThat(s.database()).isEqualTo(1);
    assertThat(s.key()).isEqualTo("urls");
    assertThat(RedisEndpoint.parse("redis+sentinel://m@s1/k").user()).isNull();
    assertThatThrownBy(() -> RedisStore.connect("redis+sentinel://m@127.0.0.1:1/k"))
        .isInstanceOf(RedisStoreException.class)
        .hasMessageContaining("no Sentinel named a master 'm'");
  }

  @Test
  void theQueryStringGivesTheSettings() {
    RedisEndpoint e =
        RedisEndpoint.parse(
            "rediss://h/k?connectTimeout=500ms&socketTimeout=3s&retries=0&poolSize=16"
                + "&truststore=%2Fetc%2Fprobkit%2Ftrust.p12&truststorePassword=a%2Bb"
                + "&keystore=/etc/client.p12&keystorePassword=x");
    RedisSettings s = e.settings(RedisSettings.defaults());
    assertThat(s.connectTimeout()).isEqualTo(Duration.ofMillis(500));
    assertThat(s.socketTimeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(s.retries()).isZero();
    assertThat(s.poolSize()).isEqualTo(16);
    assertThat(s.truststore()).isEqualTo(Path.of("/etc/probkit/trust.p12"));
    assertThat(s.truststorePassword()).isEqualTo("a+b");
    assertThat(s.keystore()).isEqualTo(Path.of("/etc/client.p12"));
    assertThat(s.keystorePassword()).isEqualTo("x");
    assertThat(e.query()).doesNotContainKey("db");

    RedisSettings base = RedisSettings.defaults().poolSize(4).retries(7);
    s = RedisEndpoint.parse("redis://h/k?poolSize=9").settings(base);
    assertThat(s.poolSize()).isEqualTo(9);
    assertThat(s.retries()).isEqualTo(7);
  }

  @Test
  void theDefaultsAreTheDocumentedOnes() {
    RedisSettings d = RedisSettings.defaults();
    assertThat(d.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(d.socketTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(d.retries()).isEqualTo(3);
    assertThat(d.poolSize()).isEqualTo(32);
    assertThat(d.truststore()).isNull();
    assertThat(d.keystore()).isNull();
  }

  @Test
  void eachSetterChangesACopyAndOnlyItsOwnValue() {
    RedisSettings all =
        RedisSettings.defaults()
            .connectTimeout(Duration.ofMillis(5))
            .socketTimeout(Duration.ofMillis(6))
            .retries(7)
            .poolSize(8)
            .truststore(Path.of("t.p12"), "tp")
            .keystore(Path.of("k.p12"), "kp");
    theDefaultsAreTheDocumentedOnes();
    assertThat(all.connectTimeout()).isEqualTo(Duration.ofMillis(5));
    assertThat(all.socketTimeout()).isEqualTo(Duration.ofMillis(6));
    assertThat(all.retries()).isEqualTo(7);
    assertThat(all.poolSize()).isEqualTo(8);
    assertThat(all.truststore()).isEqualTo(Path.of("t.p12"));
    assertThat(all.truststorePassword()).isEqualTo("tp");
    assertThat(all.keystore()).isEqualTo(Path.of("k.p12"));
    assertThat(all.keystorePassword()).isEqualTo("kp");
    RedisSettings changed = all.retries(1);
    assertThat(all.retries()).as("the receiver").isEqualTo(7);
    assertThat(changed.retries()).isEqualTo(1);
    assertThat(changed.poolSize()).isEqualTo(8);
    assertThat(changed.keystorePassword()).isEqualTo("kp");
    assertThat(changed.connectTimeout()).isEqualTo(Duration.ofMillis(5));
  }

  @Test
  void nonsenseIsRefusedWithTheValue() {
    for (String bad :
        new String[] {
          "http://localhost", "localhost:6379", "redis://", "redis:///0", "redis://a b"
        }) {
      assertThatThrownBy(() -> RedisEndpoint.parse(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(bad);
    }
  }

  @Test
  void eachBadPartIsNamedAndThePasswordNever() {
    Map<String, String> cases =
        Map.ofEntries(
            Map.entry("redis://h:0/k", "port '0' of host 'h' is not in [1, 65535]"),
            Map.entry("redis://h:http/k", "port 'http'"),
            Map.entry("redis://h/k?db=x", "db must be a database number, was 'x'"),
            Map.entry("redis://h/k?timeout=2s", "unknown parameter 'timeout'"),
            Map.entry("redis://h/k?socketTimeout=2", "socketTimeout must be a duration"),
            Map.entry("redis://h/k?poolSize=0", "poolSize must be in [1, 1024], was 0"),
            Map.entry("redis://h/k?retries=2&retries=3", "parameter 'retries' is given twice"),
            Map.entry("redis://h/k?keystorePassword=secret", "keystorePassword needs keystore"),
            Map.entry("redis://h/k#1", "write a '#' in a key as %23"),
            Map.entry("redis://h/a b", "the path has a ' '"),
            Map.entry("redis://h/k%G1", "the key has a '%' not followed by two hex digits"),
            Map.entry("redis://h/%FF", "the key is not UTF-8"),
            Map.entry("redis://h1,h2/k", "several hosts ('h1,h2') need redis+cluster://"),
            Map.entry("redis://[::1/k", "lacks its ']'"),
            Map.entry("redis://[zz]/k", "'[zz]' is not an IPv6 address"),
            Map.entry("redis://h%41/k", "host 'h%41' has characters"),
            Map.entry("redis+sentinel://s1:26379/k", "needs the master's name"),
            Map.entry("unix:///tmp/redis.sock", "scheme 'unix' is not one of"),
            Map.entry("redis://u:top-secret@h:99999/k", "port '99999'"),
            Map.entry("redis://u:top secret@h/k", "the userinfo has a ' '"));
    cases.forEach(
        (uri, message) ->
            assertThatThrownBy(() -> RedisEndpoint.parse(uri))
                .as(uri)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message)
                .hasMessageNotContaining("secret")
                .message()
                .satisfies(m -> assertThat(m.lines().count()).isEqualTo(1)));
  }

  @Test
  void aParsedUriPrintsNoPassword() {
    assertThat(RedisEndpoint.parse("redis://u:top-secret@h/k").toString())
        .doesNotContain("top-secret")
        .contains("u:****@h:6379");
    assertThat(RedisEndpoint.masked("redis+sentinel://u:top-secret@m@s1/k"))
        .isEqualTo("redis+sentinel://u:****@m@s1/k");
    assertThat(List.of(RedisEndpoint.masked("redis://h/k"))).containsExactly("redis://h/k");
  }
}
