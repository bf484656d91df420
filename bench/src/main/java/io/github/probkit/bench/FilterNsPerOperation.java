package io.github.probkit.bench;

import org.openjdk.jmh.annotations.Fork;

/** {@link NsPerOperation} with a 2 GB heap, for filters and query arrays of up to 10^8 keys. */
@Fork(
    value = 1,
    jvmArgsAppend = {"-XX:+AlwaysPreTouch", "-Xms2g", "-Xmx2g"})
public abstract class FilterNsPerOperation extends NsPerOperation {}
