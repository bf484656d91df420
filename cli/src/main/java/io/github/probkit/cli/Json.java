package io.github.probkit.cli;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** A flat or nested JSON object with keys in insertion order, for {@code --json} output. */
public final class Json {
  private final Map<String, Object> fields = new LinkedHashMap<>();

  public Json put(String key, Object value) {
    fields.put(key, value);
    return this;
  }

  Map<String, Object> fields() {
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
          if (c < 0x20) {
            sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
      }
    }
    sb.append('"');
  }
}
