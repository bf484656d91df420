package io.github.probkit;

/**
 * How a mutable structure may be written, chosen when it is created or read. Both modes write and
 * read the same bytes; they differ only in how an update reaches memory.
 *
 * <ul>
 *   <li>{@link #CONCURRENT} (the default where a structure supports it): updates from many threads
 *       at once lose nothing, at the cost of an atomic read-modify-write per changed word.
 *   <li>{@link #SINGLE_WRITER}: updates use plain stores; one thread at a time may update (readers
 *       may run beside it only where the structure's Javadoc says so). Use it to build or load a
 *       structure from one thread, the common case, where atomics cost time and buy nothing.
 * </ul>
 *
 * <p>Each structure's Javadoc states which modes it offers; one that is not thread-safe at all is
 * always single-writer.
 */
public enum Concurrency {
  CONCURRENT,
  SINGLE_WRITER
}
