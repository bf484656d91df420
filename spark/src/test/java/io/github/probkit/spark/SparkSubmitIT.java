package io.github.probkit.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.probkit.filter.BloomFilter;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded jar as a user passes it to spark-submit: a separate JVM running Spark's own {@code
 * SparkSubmit} with Spark's classpath, the shaded {@code probkit-spark-*-all.jar} as the only
 * probkit (and hash4j) on it through {@code --jars}, and the functions registered by {@code
 * spark.sql.extensions}. Runs after {@code package} (failsafe, {@code mvn verify}).
 */
class SparkSubmitIT {
  private static final int KEYS = 20_000;

  @TempDir Path dir;

  @Test
  void aSparkSubmitWithTheShadedJarAloneBuildsAndQueriesAFilter() throws Exception {
    Path shaded = shadedJar();
    try (JarFile jar = new JarFile(shaded.toFile())) {
      assertThat(jar.stream().map(JarEntry::getName))
          .as("hash4j is relocated, not bundled under its own name")
          .noneMatch(n -> n.startsWith("com/dynatrace/"))
          .contains(
              "io/github/probkit/spark/ProbkitExtensions.class",
              "io/github/probkit/filter/BloomFilter.class")
          .anyMatch(n -> n.startsWith("io/github/probkit/shaded/hash4j/"));
    }
    List<String> words = words();
    Path keys = Files.write(dir.resolve("words.txt"), words, StandardCharsets.UTF_8);
    String out = submit(shaded, appJar(), keys.toString(), dir.toString());
    System.out.println(out);

    assertThat(out).contains("extensions-from=" + shaded.toUri().toURL());
    assertThat(out).contains("members-absent=0").contains("key_type=string");
    BloomFilter expected = BloomFilter.create(KEYS, 0.01);
    words.forEach(expected::add);
    assertThat(Files.readAllBytes(dir.resolve("filter.bin")))
        .isEqualTo(TestSpark.bytes(expected::writeTo));
    // 10^5 absent keys at 1 %: 1,000 expected, sd 31; 1,200 is more than 6 sd away.
    long falsePositives = value(out, "absent-present");
    assertThat(falsePositives).isBetween(800L, 1_200L);
    // HLL at precision 14: relative standard error 0.81 %; 4 sd.
    assertThat((double) value(out, "estimate"))
        .isCloseTo(KEYS, org.assertj.core.data.Offset.offset(KEYS * 0.033));
  }

  /** The distinct words of the system dictionary, the first KEYS of them. */
  private static List<String> words() throws IOException {
    Set<String> distinct = new LinkedHashSet<>();
    // The system dictionary (wamerican, which .ci/run installs), or distinct generated words.
    Path dictionary = Path.of("/usr/share/dict/words");
    if (Files.isReadable(dictionary)) {
      for (String w : Files.readAllLines(dictionary, StandardCharsets.UTF_8)) {
        if (distinct.size() < KEYS) {
          distinct.add(w);
        }
      }
    }
    for (long i = 1; distinct.size() < KEYS; i++) {
      distinct.add(Long.toString((i * 0x9E3779B97F4A7C15L) >>> 24, 36));
    }
    assertThat(distinct).hasSize(KEYS);
    return new ArrayList<>(distinct);
  }

  private static Path shadedJar() throws IOException {
    List<Path> found = new ArrayList<>();
    try (DirectoryStream<Path> s =
        Files.newDirectoryStream(Path.of("target"), "probkit-spark-*-all.jar")) {
      s.forEach(found::add);
    }
    assertThat(found).as("the shaded jar from mvn package").hasSize(1);
    return found.get(0).toAbsolutePath();
  }

  /** The application: the one class of {@link submitted.SqlJob}, in a jar of its own. */
  private Path appJar() throws IOException {
    Path jar = dir.resolve("job.jar");
    String name = submitted.SqlJob.class.getName().replace('.', '/') + ".class";
    try (OutputStream file = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(file);
        InputStream in = SparkSubmitIT.class.getClassLoader().getResourceAsStream(name)) {
      out.putNextEntry(new JarEntry(name));
      in.transferTo(out);
      out.closeEntry();
    }
    return jar;
  }

  /**
   * The test's classpath without any probkit module or hash4j: Spark and what it needs, as a Spark
   * installation's jars directory would have it.
   */
  private static String sparkClasspath() {
    return List.of(System.getProperty("java.class.path").split(File.pathSeparator)).stream()
        .filter(
            e -> {
              Path p = Path.of(e);
              String file = p.getFileName().toString();
              return !Files.isDirectory(p)
                  && !file.startsWith("probkit-")
                  && !file.startsWith("hash4j-");
            })
        .collect(Collectors.joining(File.pathSeparator));
  }

  private String submit(Path shaded, Path app, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx1g");
    command.add("-Djdk.reflect.useDirectMethodHandle=false");
    for (String p :
        List.of(
            "java.lang",
            "java.lang.invoke",
            "java.lang.reflect",
            "java.io",
            "java.net",
            "java.nio",
            "java.util",
            "java.util.concurrent",
            "java.util.concurrent.atomic",
            "jdk.internal.ref",
            "sun.nio.ch",
            "sun.nio.cs",
            "sun.security.action",
            "sun.util.calendar")) {
      command.add("--add-opens=java.base/" + p + "=ALL-UNNAMED");
    }
    command.addAll(
        List.of(
            "-cp",
            sparkClasspath(),
            "org.apache.spark.deploy.SparkSubmit",
            "--master",
            "local[2]",
            "--conf",
            "spark.sql.extensions=io.github.probkit.spark.ProbkitExtensions",
            "--conf",
            "spark.ui.enabled=false",
            "--conf",
            "spark.sql.shuffle.partitions=2",
            "--conf",
            "spark.driver.host=127.0.0.1",
            "--jars",
            shaded.toString(),
            "--class",
            submitted.SqlJob.class.getName(),
            app.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(180, TimeUnit.SECONDS)).as(out).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }

  private static long value(String out, String name) {
    return out.lines()
        .filter(l -> l.startsWith(name + "="))
        .mapToLong(l -> Long.parseLong(l.substring(name.length() + 1).trim()))
        .findFirst()
        .orElseThrow(() -> new AssertionError(name + " not in the output:\n" + out));
  }
}
