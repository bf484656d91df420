package io.github.probkit.cli.format;

import io.github.probkit.filter.MappedFilter;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.InputStream;

/** probkit's own format (docs/FORMAT.md): the magic "PKIT", a version, the structure type. */
public final class ProbkitFormat implements Format {
  public static final ProbkitFormat INSTANCE = new ProbkitFormat();

  private ProbkitFormat() {}

  @Override
  public String name() {
    return "probkit";
  }

  @Override
  public boolean recognizes(byte[] head) {
    return head.length >= 4 && head[0] == 'P' && head[1] == 'K' && head[2] == 'I' && head[3] == 'T';
  }

  /** Whether a file that starts with {@code head} holds a filter that can be queried mapped. */
  public boolean maps(byte[] head) {
    if (head.length < 6 || !recognizes(head)) {
      return false;
    }
    StructureType type = StructureType.byId(head[5] & 0xFF);
    return type != null && MappedFilter.supports(type);
  }

  @Override
  public <T> T read(InputStream in, Kind<T> kind) throws IOException {
    return kind.probkit.read(in);
  }
}
