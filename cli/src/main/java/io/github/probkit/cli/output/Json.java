package io.github.probkit.cli.output;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A flat or nested JSON object with keys in insertion order, for {@code --json} output.
 *
 * <p>Keys and lines from the input are bytes, and JSON strings are Unicode: bytes that are valid
 * UTF-8 become their string; bytes that are not become a string with U+FFFD for each invalid
 * sequence (readable, but lossy), and a second field NAME + "Base64" holds the exact bytes.
 */
public final class Json {
  private final Map<String, Object> fields = new LinkedHashMap<>();

  public Json put(String key, Object value) {
    fields.put(key, value);
    return this;
  }

  /**
   * Puts the bytes {@code b[off, off + len)} as a string, plus {@code key + "Base64"} when they are
   * not UTF-8.
   */
  public Json putBytes(String key, byte[] b, int off, int len) {
    java.nio.charset.CharsetDecoder d = java.nio.charset.StandardCharsets.UTF_8.newDecoder();
    try {
      fields.put(key, d.decode(java.nio.ByteBuffer.wrap(b, off, len)).toString());
    } catch (java.nio.charset.CharacterCodingException e) {
      fields.put(key, new String(b, off, len, java.nio.charset.StandardCharsets.UTF_8));
      fields.put(
          key + "Base64",
          java.util.Base64.getEncoder()
              .encodeToString(java.util.Arrays.copyOfRange(b, off, off + len)));
    }
    return this;
  }

  public Map<String, Object> fields() {
    return fields;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    write(sb, this);
    return sb.toString();
  }

  private static void write(StringBuilder sb, Object v) {
    if (v == null) {
      sb.append("null");
    } else if (v instanceof Json) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<String, Object> e : ((Json) v).fields.entrySet()) {
        if (!first) {
          sb.append(", ");
        }
        first = false;
        string(sb, e.getKey());
        sb.append(": ");
        write(sb, e.getValue());
      }
      sb.append('}');
    } else if (v instanceof Iterable) {
      sb.append('[');
      boolean first = true;
      for (Object o : (Iterable<?>) v) {
        if (!first) {
          sb.append(", ");
        }
        first = false;
        write(sb, o);
      }
      sb.append(']');
    } else if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      sb.append(Double.isFinite(d) ? String.format(Locale.ROOT, "%s", d) : "null");
    } else if (v instanceof Number || v instanceof Boolean) {
      sb.append(v);
    } else {
      string(sb, v.toString());
    }
  }

  private static void string(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          sb.append("\\\"");
          break;
        case '\\':
          sb.append("\\\\");
          break;
        case '\n':
          sb.append("\\n");
          break;
        case '\r':
          sb.append("\\r");
          break;
        case '\t':
          sb.append("\\t");
          break;
        default:
          // Control characters, and the line and paragraph separators, which some parsers of JSON
          // Lines split at.
          if (c < 0x20 || c == 0x2028 || c == 0x2029 || c == 0x7f) {
            sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
      }
    }
    sb.append('"');
  }
}
