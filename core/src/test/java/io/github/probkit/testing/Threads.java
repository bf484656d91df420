package io.github.probkit.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Runs a task on several threads at once, for the tests of thread-safety claims. */
public final class Threads {
  /** The number of threads the concurrency tests use (issue: "8 threads adding at once"). */
  public static final int COUNT = 8;

  private Threads() {}

  /** A task given its thread's index in [0, threads). */
  @FunctionalInterface
  public interface Task {
    void run(int thread) throws Exception;
  }

  /**
   * Runs {@code task(0)} to {@code task(threads - 1)}, each on its own thread, released together by
   * a barrier so that they overlap even on a machine with few cores; rethrows the first failure.
   */
  public static void run(int threads, Task task) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CyclicBarrier start = new CyclicBarrier(threads);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int id = t;
        done.add(
            pool.submit(
                () -> {
                  start.await();
                  task.run(id);
                  return null;
                }));
      }
      for (Future<?> f : done) {
        try {
          f.get(5, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
          if (e.getCause() instanceof Error) {
            throw (Error) e.getCause();
          }
          throw (Exception) e.getCause();
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
