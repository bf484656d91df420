package io.github.probkit.spark;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry;
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry$;
import org.junit.jupiter.api.Test;

class ExtensionsTest {
  @Test
  void theExtensionRegistersEveryFunction() {
    SparkSessionExtensions extensions = new SparkSessionExtensions();
    new ProbkitExtensions().apply(extensions);
    FunctionRegistry registry =
        extensions.registerFunctions(FunctionRegistry$.MODULE$.builtin().clone());
    for (String name :
        new String[] {
          "probkit_bloom_agg",
          "probkit_cms_agg",
          "probkit_topk_agg",
          "probkit_hll_agg",
          "probkit_ull_agg",
          "probkit_union_agg",
          "probkit_might_contain",
          "probkit_estimate",
          "probkit_cms_estimate",
          "probkit_topk",
          "probkit_union",
          "probkit_info",
          "probkit_intersection",
          "probkit_jaccard"
        }) {
      assertThat(registry.functionExists(FunctionIdentifier.apply(name))).as(name).isTrue();
    }
  }
}
