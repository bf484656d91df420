package io.github.probkit.dist;

import io.github.probkit.cli.Main;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.codegen.docgen.manpage.ManPageGenerator;

/**
 * Build-time only: writes the distribution's man pages, as AsciiDoc for asciidoctor's manpage
 * backend (one page per command, from picocli's model of the command line), and its bash/zsh
 * completion script. The command line registers its subcommands itself (only the one a run names),
 * so the model comes from {@link Main#commandLine()}, which has them all; picocli's own {@code
 * gen-manpage} tool would see only the annotated top-level class.
 */
public final class DistDocs {
  private DistDocs() {}

  /**
   * Writes the pages into the directory {@code args[0]} and the completion script to the file
   * {@code args[1]}.
   *
   * @param args the AsciiDoc directory and the completion script's file
   * @throws IOException if a file cannot be written
   */
  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      throw new IllegalArgumentException(
          "usage: DistDocs ADOC_DIR COMPLETION_FILE, was " + args.length + " arguments");
    }
    CommandLine cl = Main.commandLine();
    Path pages = Path.of(args[0]);
    Files.createDirectories(pages);
    int rc =
        ManPageGenerator.generateManPage(
            pages.toFile(), null, new boolean[0], false, cl.getCommandSpec());
    if (rc != 0) {
      throw new IllegalStateException("ManPageGenerator failed with exit code " + rc);
    }
    Path completion = Path.of(args[1]);
    Files.createDirectories(completion.getParent());
    Files.writeString(completion, AutoComplete.bash("probkit", cl), StandardCharsets.UTF_8);
  }
}
