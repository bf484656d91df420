/**
 * probkit's probabilistic data structures: membership filters ({@code filter}), frequency sketches
 * ({@code frequency}), cardinality sketches ({@code cardinality}), other libraries' formats ({@code
 * foreign}), key hashing ({@code hash}) and the binary format ({@code io}). The {@code internal}
 * package is not exported: on the module path it cannot be used, and on the class path it is no API
 * (it may change in any release).
 */
module io.github.probkit.core {
  requires com.dynatrace.hash4j;
  // Only to learn which garbage collector runs (internal.BatchPasses.largeArraysAligned).
  requires java.management;

  exports io.github.probkit;
  exports io.github.probkit.cardinality;
  exports io.github.probkit.filter;
  exports io.github.probkit.foreign;
  exports io.github.probkit.frequency;
  exports io.github.probkit.hash;
  exports io.github.probkit.io;
}
