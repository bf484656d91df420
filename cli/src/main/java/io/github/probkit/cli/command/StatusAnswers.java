package io.github.probkit.cli.command;

/**
 * A command whose exit status can be its answer, as grep's is (0: something was found, 1: nothing
 * was): while it is, its runtime errors exit with 2 instead of 1, so that a missing file is never
 * taken for "not found".
 */
public interface StatusAnswers {
  boolean statusAnswers();
}
