package io.github.probkit.cli;

import java.nio.file.Path;

/**
 * Whether a command's FILE argument is a {@code redis://} or {@code rediss://} URI. Kept apart from
 * {@link RedisLocation} so that a run on files loads no class of probkit-redis or Jedis.
 */
final class RedisUri {
  private RedisUri() {}

  /** How --help spells a URI. */
  static final String SYNTAX = "redis://[user@]host[:port][/db]/KEY (rediss:// for TLS)";

  /** What --help says of a FILE that may be a URI, and of the SRCs of a merge. */
  static final String FILTER =
      " Or " + SYNTAX + ": a bloom, blocked, counting or scalable filter kept in Redis.";

  static final String CMS = " Or " + SYNTAX + ": a count-min sketch kept in Redis.";

  static final String HLL = " Or " + SYNTAX + ": a HyperLogLog or UltraLogLog kept in Redis.";

  static final String ANY =
      " Or "
          + SYNTAX
          + ": a structure kept in Redis (bloom, blocked, counting and scalable filters, count-min"
          + " sketches, HyperLogLog and UltraLogLog).";

  static final String SOURCES = " Files or redis:// URIs (read whole).";

  /**
   * The URI that {@code p} was given as, or null when it names a file. A URI reaches the commands
   * as a Path, which folds its {@code //} to {@code /}; nothing else is lost.
   */
  static String of(Path p) {
    String s = p.toString();
    for (String scheme : new String[] {"redis:/", "rediss:/"}) {
      if (s.startsWith(scheme)) {
        return scheme + "/" + s.substring(scheme.length());
      }
    }
    return null;
  }

  static boolean is(Path p) {
    return of(p) != null;
  }

  /**
   * {@code uri} for a warning: {@code redis://user:secret@host/k} as {@code redis://user@host/k}.
   */
  static String withoutPassword(String uri) {
    return uri.replaceFirst("^(rediss?://[^:@/]*):[^@/]*@", "$1@");
  }
}
