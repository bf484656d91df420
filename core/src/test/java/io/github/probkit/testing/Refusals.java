package io.github.probkit.testing;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.probkit.io.SketchFormatException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;

/** Files a structure's reader must refuse as malformed, with a message that says why. */
public final class Refusals {
  private Refusals() {}

  /** A structure's {@code readFrom}. */
  public interface Reader {
    Object readFrom(InputStream in) throws IOException;
  }

  /** Reading {@code bytes} fails as a bad file whose message contains {@code message}. */
  public static void assertRefused(Reader reader, byte[] bytes, String message) {
    assertThatThrownBy(() -> reader.readFrom(new ByteArrayInputStream(bytes)))
        .isInstanceOf(SketchFormatException.class)
        .hasMessageContaining(message);
  }
}
