package io.github.probkit.spark;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;

/** A sum of one metric over every task that ends in a session, for the side-by-side harnesses. */
final class TaskTotal {
  private TaskTotal() {}

  /** The running sum of {@code metric}, updated as tasks end (reset it with {@code set(0)}). */
  static AtomicLong of(SparkSession spark, ToLongFunction<TaskMetrics> metric) {
    AtomicLong total = new AtomicLong();
    spark
        .sparkContext()
        .addSparkListener(
            new SparkListener() {
              @Override
              public void onTaskEnd(SparkListenerTaskEnd end) {
                if (end.taskMetrics() != null) {
                  total.addAndGet(metric.applyAsLong(end.taskMetrics()));
                }
              }
            });
    return total;
  }
}
