package io.github.probkit.bench;

import java.util.List;
import org.openjdk.jmh.annotations.Param;

/**
 * A benchmark's {@code @Param} list read back at run time, so that the runner and the reports name
 * the same contestants as JMH's default run without a second list to keep in step.
 */
final class ParamValues {
  private ParamValues() {}

  static List<String> of(Class<?> benchmark, String field) {
    try {
      return List.of(benchmark.getField(field).getAnnotation(Param.class).value());
    } catch (NoSuchFieldException e) {
      throw new IllegalStateException(benchmark.getSimpleName() + " has no @Param " + field, e);
    }
  }
}
