package io.github.probkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Redis URIs: what is accepted, and what is refused before connecting (no server needed). */
class EndpointTest {
  @Test
  void theUriFormsAreParsed() {
    RedisStore.Endpoint e = RedisStore.Endpoint.parse("redis://localhost");
    assertThat(e.host).isEqualTo("localhost");
    assertThat(e.port).isEqualTo(6379);
    assertThat(e.database).isZero();
    assertThat(e.tls).isFalse();
    assertThat(e.user).isNull();
    assertThat(e.password).isNull();
    assertThat(e.rest).isNull();

    e = RedisStore.Endpoint.parse("rediss://crawler:s%3Acret@cache.internal:6380/3/urls");
    assertThat(e.host).isEqualTo("cache.internal");
    assertThat(e.port).isEqualTo(6380);
    assertThat(e.user).isEqualTo("crawler");
    assertThat(e.password).isEqualTo("s:cret");
    assertThat(e.database).isEqualTo(3);
    assertThat(e.tls).isTrue();
    assertThat(e.rest).isEqualTo("urls");

    e = RedisStore.Endpoint.parse("redis://alice@127.0.0.1/urls");
    assertThat(e.user).isEqualTo("alice");
    assertThat(e.password).isNull();
    assertThat(e.database).isZero();
    assertThat(e.rest).isEqualTo("urls");
  }

  @Test
  void nonsenseIsRefusedWithTheValue() {
    for (String bad :
        new String[] {
          "http://localhost", "localhost:6379", "redis://", "redis:///0", "redis://a b"
        }) {
      assertThatThrownBy(() -> RedisStore.Endpoint.parse(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(bad);
    }
  }
}
