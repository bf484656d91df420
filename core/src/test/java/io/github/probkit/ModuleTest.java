package io.github.probkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.dynatrace.hash4j.hashing.Hashing;
import io.github.probkit.filter.BloomFilter;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The module exports the public packages and hides {@code internal}: loaded on the module path
 * (from the compiled classes and hash4j's jar) it resolves, and a filter made through it works.
 */
class ModuleTest {
  private static Path location(Class<?> c) throws URISyntaxException {
    return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  @Test
  void exportsThePublicPackagesOnly() throws Exception {
    ModuleFinder finder = ModuleFinder.of(location(BloomFilter.class), location(Hashing.class));
    ModuleDescriptor d = finder.find("io.github.probkit.core").orElseThrow().descriptor();
    Set<String> exported =
        d.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet());
    assertThat(exported)
        .containsExactlyInAnyOrder(
            "io.github.probkit",
            "io.github.probkit.cardinality",
            "io.github.probkit.filter",
            "io.github.probkit.foreign",
            "io.github.probkit.frequency",
            "io.github.probkit.hash",
            "io.github.probkit.io");
    assertThat(d.packages()).contains("io.github.probkit.internal");

    Configuration cf =
        ModuleLayer.boot()
            .configuration()
            .resolve(finder, ModuleFinder.of(), Set.of("io.github.probkit.core"));
    ModuleLayer layer =
        ModuleLayer.boot().defineModulesWithOneLoader(cf, ClassLoader.getPlatformClassLoader());
    Module core = layer.findModule("io.github.probkit.core").orElseThrow();
    assertThat(core.isExported("io.github.probkit.filter")).isTrue();
    assertThat(core.isExported("io.github.probkit.internal")).isFalse();
    Class<?> bloom =
        layer
            .findLoader("io.github.probkit.core")
            .loadClass("io.github.probkit.filter.BloomFilter");
    assertThat(bloom.getModule()).isSameAs(core);
    Object f = bloom.getMethod("create", long.class, double.class).invoke(null, 1000L, 0.01);
    bloom.getMethod("add", CharSequence.class).invoke(f, "k");
    assertThat(bloom.getMethod("mightContain", CharSequence.class).invoke(f, "k")).isEqualTo(true);
  }
}
