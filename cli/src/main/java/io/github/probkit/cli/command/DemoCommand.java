package io.github.probkit.cli.command;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code probkit demo [NAME...]}: the specification's walkthroughs, computed by the library. */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Run the specification's walkthroughs through probkit's own structures.",
      "",
      "Each prints exactly what the specification prints. With no NAME, run every demo.",
    },
    footer = {"", "Examples:", "  probkit demo", "  probkit demo bloom", "  probkit demo cms"})
public final class DemoCommand implements Callable<Integer> {
  /** Every demo, in the order {@code probkit demo} runs them. */
  public static final Map<String, Consumer<PrintWriter>> DEMOS = new LinkedHashMap<>();

  static {
    DEMOS.put("bloom", BloomDemo::run);
    DEMOS.put("cms", CmsDemo::run);
  }

  @Spec CommandSpec spec;

  @Parameters(
      paramLabel = "NAME",
      arity = "0..*",
      description = "Demos to run: ${COMPLETION-CANDIDATES}.",
      completionCandidates = Names.class)
  List<String> names = new ArrayList<>();

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    for (String n : names) {
      if (!DEMOS.containsKey(n)) {
        throw new IllegalArgumentException(
            "unknown demo '" + n + "'; choose from " + String.join(", ", DEMOS.keySet()));
      }
    }
    if (names.isEmpty()) {
      boolean first = true;
      for (Map.Entry<String, Consumer<PrintWriter>> e : DEMOS.entrySet()) {
        if (!first) {
          out.println();
        }
        first = false;
        out.println("== probkit demo " + e.getKey() + " ==");
        e.getValue().accept(out);
      }
    } else {
      for (String n : names) {
        DEMOS.get(n).accept(out);
      }
    }
    out.flush();
    return 0;
  }

  static final class Names extends ArrayList<String> {
    private static final long serialVersionUID = 1L;

    Names() {
      super(DEMOS.keySet());
    }
  }
}
