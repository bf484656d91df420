package io.github.probkit.spark;

import org.apache.spark.sql.SparkSessionExtensions;
import scala.Function1;
import scala.runtime.BoxedUnit;

/**
 * Registers the probkit functions in every session of an application configured with {@code
 * spark.sql.extensions=io.github.probkit.spark.ProbkitExtensions} (spark-submit, spark-sql).
 */
public final class ProbkitExtensions implements Function1<SparkSessionExtensions, BoxedUnit> {
  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    ProbkitFunctions.functions().forEach(extensions::injectFunction);
    return BoxedUnit.UNIT;
  }
}
