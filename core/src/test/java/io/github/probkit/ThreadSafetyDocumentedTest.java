package io.github.probkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every structure (a public class with {@code writeTo} and a static {@code readFrom}) states its
 * thread safety in its class Javadoc, and every one that claims any is one whose claim the
 * concurrency tests check with {@code Threads.COUNT} threads at once. A new structure therefore
 * fails here until its Javadoc says "not thread-safe" or its claim gets a test (and an entry
 * below).
 */
class ThreadSafetyDocumentedTest {
  /** The structures that claim thread safety, and the test that holds them to it. */
  private static final Map<String, String> TESTED_CLAIMS =
      Map.of(
          "BloomFilter",
              "BloomFilterTest.concurrentAddsLoseNothing, writeToDuringConcurrentAddsWritesAReadableFilter",
          "BlockedBloomFilter",
              "BlockedBloomFilterTest.concurrentAddsGiveTheSameBitsAsSequentialOnes",
          "SplitBlockBloomFilter", "SplitBlockBloomFilterTest.concurrentAddsLoseNothing",
          "ScalableBloomFilter", "ScalableBloomFilterTest.concurrentAddsLoseNothing",
          "BinaryFuseFilter", "BinaryFuseFilterTest.concurrentQueriesGiveTheSerialAnswers",
          "AgePartitionedBloomFilter",
              "AgePartitionedBloomFilterTest.concurrentQueriesGiveTheSerialAnswers",
          "CountMinSketch",
              "CountMinSketchTest.concurrentAddsLoseNoCount, concurrentMergesAndAddsLoseNoCount,"
                  + " writeToDuringConcurrentAddsWritesAValidSketch");

  private static final Path SOURCES = Path.of("src/main/java/io/github/probkit");
  private static final Path TESTS = Path.of("src/test/java");
  private static final Pattern READ_FROM =
      Pattern.compile("public static \\w+ readFrom\\(InputStream");
  private static final Pattern CLASS_DOC =
      Pattern.compile("/\\*\\*((?:(?!\\*/).)*)\\*/\\s*public final class (\\w+)", Pattern.DOTALL);

  @Test
  void everyStructureStatesItsThreadSafetyAndEveryClaimIsTested() throws IOException {
    List<String> structures = new ArrayList<>();
    try (Stream<Path> files = Files.walk(SOURCES)) {
      for (Path file :
          (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
        String source = Files.readString(file);
        if (!READ_FROM.matcher(source).find()
            || !source.contains("public void writeTo(OutputStream")) {
          continue;
        }
        Matcher m = CLASS_DOC.matcher(source);
        assertThat(m.find()).as("%s has a class Javadoc", file).isTrue();
        String name = m.group(2);
        String doc = m.group(1).replaceAll("\\s*\\*\\s*", " ");
        structures.add(name);
        assertThat(doc).as("%s states its thread safety", name).contains("Thread safety:");
        String statement = doc.substring(doc.indexOf("Thread safety:"));
        if (!statement.contains("not thread-safe")) {
          assertThat(TESTED_CLAIMS)
              .as("%s claims thread safety (%s) but no concurrency test checks it", name, statement)
              .containsKey(name);
          String pkg = SOURCES.relativize(file.getParent()).toString().replace('/', '.');
          assertNamedTestsExist(name, "io.github.probkit." + pkg, TESTED_CLAIMS.get(name));
        }
      }
    }
    // Every claim named above belongs to a structure that still makes it.
    assertThat(structures).containsAll(TESTED_CLAIMS.keySet());
    // The scan found the structures (guards against a moved source tree passing vacuously).
    assertThat(structures)
        .contains("BloomFilter", "CountMinSketch", "HeavyHitters", "CuckooFilter")
        .containsAll(TESTED_CLAIMS.keySet());
  }

  /**
   * Each test named ("Class.method, method, ...") exists in the structure's package, is a JUnit
   * test that runs by default (not disabled, not tagged slow), and runs work on {@code
   * Threads.COUNT} threads at once through {@code Threads.run}: a renamed, deleted or emptied test
   * fails here instead of leaving the claim untested.
   */
  private static void assertNamedTestsExist(String structure, String pkg, String names)
      throws IOException {
    String[] parts = names.split(",\\s*");
    String testClass = parts[0].substring(0, parts[0].indexOf('.'));
    parts[0] = parts[0].substring(testClass.length() + 1);
    Class<?> c;
    try {
      c = Class.forName(pkg + "." + testClass);
    } catch (ClassNotFoundException e) {
      throw new AssertionError(
          structure + "'s claim names " + pkg + "." + testClass + ", which does not exist", e);
    }
    String source =
        Files.readString(TESTS.resolve(pkg.replace('.', '/')).resolve(testClass + ".java"));
    for (String method : parts) {
      Method m;
      try {
        m = c.getDeclaredMethod(method);
      } catch (NoSuchMethodException e) {
        throw new AssertionError(
            structure + "'s claim names " + testClass + "." + method + ", which does not exist", e);
      }
      assertThat(m.isAnnotationPresent(Test.class))
          .as("%s.%s is a @Test", testClass, method)
          .isTrue();
      assertThat(m.isAnnotationPresent(Disabled.class))
          .as("%s.%s is disabled", testClass, method)
          .isFalse();
      Tag tag = m.getAnnotation(Tag.class);
      assertThat(tag == null ? "" : tag.value())
          .as("%s.%s runs by default", testClass, method)
          .isNotEqualTo("slow");
      // Whitespace removed: the formatter may break the call after its opening parenthesis. The
      // race may be a shared helper of the package's tests, whose own body must then race.
      String body = body(source, method).replaceAll("\\s+", "");
      if (body.contains("ConcurrentAdds.raceAndReplay(")) {
        body =
            Files.readString(TESTS.resolve(pkg.replace('.', '/')).resolve("ConcurrentAdds.java"))
                .replaceAll("\\s+", "");
      }
      assertThat(body)
          .as("%s.%s runs threads at once", testClass, method)
          .contains("Threads.run(Threads.COUNT");
    }
  }

  /** The source of a method: from its declaration to the next method's annotation or the end. */
  private static String body(String source, String method) {
    int start = source.indexOf("void " + method + "(");
    assertThat(start).as("source of %s", method).isNotNegative();
    int end = source.indexOf("\n  @", start);
    return source.substring(start, end < 0 ? source.length() : end);
  }
}
