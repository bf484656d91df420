package io.github.probkit.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * How the benchmarks that extend this measure, in one place: the mean ns per operation over 5
 * one-second iterations after 3 of warm-up, in one fork whose 1 GB heap is touched up front. JMH
 * reads these annotations from the superclass; a benchmark that needs another heap declares its own
 * {@code @Fork}, which wins.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-XX:+AlwaysPreTouch", "-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public abstract class NsPerOperation {}
