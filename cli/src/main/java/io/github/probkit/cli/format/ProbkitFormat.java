package io.github.probkit.cli.format;

import io.github.probkit.cardinality.CardinalitySketch;
import io.github.probkit.cli.output.CliException;
import io.github.probkit.filter.MappedFilter;
import io.github.probkit.filter.MembershipFilter;
import io.github.probkit.frequency.FrequencySketch;
import io.github.probkit.io.SketchFormatException;
import io.github.probkit.io.StructureType;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/** probkit's own format (docs/FORMAT.md): the magic "PKIT", a version, the structure type. */
public final class ProbkitFormat implements Format {
  public static final ProbkitFormat INSTANCE = new ProbkitFormat();

  private ProbkitFormat() {}

  @Override
  public boolean hasMagic() {
    return true;
  }

  @Override
  public ForeignFilter filter(InputStream in) throws SketchFormatException {
    throw Format.holdsNo(this, "filter");
  }

  @Override
  public ForeignCounts counts(InputStream in) throws SketchFormatException {
    throw Format.holdsNo(this, "count-min sketch");
  }

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

  @Override
  public void write(Object structure, OutputStream out) throws IOException {
    if (structure instanceof MembershipFilter) {
      ((MembershipFilter) structure).writeTo(out);
    } else if (structure instanceof FrequencySketch) {
      ((FrequencySketch) structure).writeTo(out);
    } else if (structure instanceof CardinalitySketch) {
      ((CardinalitySketch) structure).writeTo(out);
    } else {
      throw new CliException("probkit: cannot write a " + structure.getClass().getSimpleName());
    }
  }
}
