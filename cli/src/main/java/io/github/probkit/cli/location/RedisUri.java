package io.github.probkit.cli.location;

import java.nio.file.Path;

/**
 * Whether a command's FILE argument is a Redis URI ({@code redis://}, {@code rediss://}, {@code
 * redis+cluster://}, {@code redis+sentinel://}). Kept apart from {@link RedisLocation} so that a
 * run on files loads no class of probkit-redis or Jedis.
 */
public final class RedisUri {
  private RedisUri() {}

  /** How --help spells a URI. */
  static final String SYNTAX =
      "redis://[user@]host[:port][/db]/KEY (rediss:// for TLS; redis+cluster://h1:p1,h2:p2/KEY,"
          + " redis+sentinel://MASTER@h1:p1,h2:p2/KEY)";

  /** What --help says of a FILE that may be a URI, and of the SRCs of a merge. */
  public static final String FILTER =
      " Or " + SYNTAX + ": a bloom, blocked, counting, scalable or window filter kept in Redis.";

  public static final String CMS =
      " Or " + SYNTAX + ": a count-min sketch, windowed or not, kept in Redis.";

  public static final String HLL =
      " Or " + SYNTAX + ": a HyperLogLog or UltraLogLog, windowed or not, kept in Redis.";

  public static final String ANY =
      " Or "
          + SYNTAX
          + ": a structure kept in Redis (bloom, blocked, counting, scalable and window filters,"
          + " count-min sketches, HyperLogLog and UltraLogLog, windowed or not).";

  public static final String SOURCES = " Files or redis:// URIs (read whole).";

  /**
   * The URI that {@code p} was given as, or null when it names a file. A URI reaches the commands
   * as a Path, which folds its {@code //} to {@code /}; nothing else is lost.
   */
  public static String of(Path p) {
    String s = p.toString();
    for (String scheme : SCHEMES) {
      if (s.startsWith(scheme)) {
        return scheme + "/" + s.substring(scheme.length());
      }
    }
    return null;
  }

  /** probkit-redis's forms (its RedisEndpoint), as a Path keeps them: with one slash. */
  private static final String[] SCHEMES = {
    "redis:/", "rediss:/", "redis+cluster:/", "rediss+cluster:/", "redis+sentinel:/"
  };

  static boolean is(Path p) {
    return of(p) != null;
  }

  /**
   * {@code uri} for a warning: {@code redis://user:secret@host/k} as {@code redis://user@host/k}.
   */
  public static String withoutPassword(String uri) {
    return uri.replaceFirst("^(rediss?(?:\\+cluster|\\+sentinel)?://[^:@/]*):[^@/]*@", "$1@");
  }
}
