package io.github.probkit.frequency;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A String item is its UTF-8 bytes whichever way HeavyHitters encodes it: its own scratch array for
 * short ASCII Strings, the per-thread buffer for the rest.
 */
class HeavyHittersStringItemsTest {
  @Test
  void aStringIsCountedAsItsUtf8BytesOnEveryPath() {
    // Around the ASCII boundary and the scratch array's 64 chars; surrogates paired and not (an
    // unpaired one is '?', as String.getBytes makes it).
    String[] tails = {
      "", "\u007f", "\u0080", "\u00ff", "\u0100", "\u2192", "\ud83d\ude00", "\ud83d"
    };
    Set<String> items = new LinkedHashSet<>();
    for (int len : new int[] {0, 1, 62, 63, 64, 65, 200}) {
      for (String tail : tails) {
        items.add("k".repeat(Math.max(0, len - tail.length())) + tail);
      }
    }
    HeavyHitters h = HeavyHitters.withCapacity(items.size());
    Map<String, Long> weights = new HashMap<>();
    long w = 1;
    for (String s : items) {
      h.add(s, w);
      h.add(new StringBuilder(s), w); // a CharSequence that is not a String
      weights.put(s, 2 * w);
      w++;
    }
    assertThat(h.size()).isEqualTo(items.size());
    for (String s : items) {
      byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
      assertThat(h.estimate(utf8)).as("%s", s).isEqualTo(weights.get(s));
      assertThat(h.lowerBound(utf8)).as("%s", s).isEqualTo(weights.get(s));
    }
    Set<String> stored = new HashSet<>();
    for (HeavyHitters.Entry e : h.entries()) {
      stored.add(new String(e.item(), StandardCharsets.ISO_8859_1));
    }
    Set<String> expected = new HashSet<>();
    for (String s : items) {
      expected.add(new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1));
    }
    assertThat(stored).isEqualTo(expected);
  }
}
