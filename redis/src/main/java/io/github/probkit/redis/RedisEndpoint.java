package io.github.probkit.redis;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A parsed Redis URI (RFC 3986 syntax), one of:
 *
 * <pre>
 * redis://[USER[:PASSWORD]@]HOST[:PORT][/[DB/]KEY][?NAME=VALUE&amp;...]       one server (rediss:// TLS)
 * redis+cluster://[USER[:PASSWORD]@]HOST:PORT,HOST:PORT[/KEY][?...]         a cluster, through any
 *                                                                              of these nodes (rediss+cluster://)
 * redis+sentinel://[USER[:PASSWORD]@]MASTER@HOST:PORT,HOST:PORT[/[DB/]KEY][?...]  Sentinel's MASTER
 * </pre>
 *
 * <p>The path is the KEY (the structure's name), percent-decoded, whatever it looks like: {@code
 * redis://h/2024} is key {@code 2024} in database 0. The database is chosen explicitly, by {@code
 * ?db=N} or by a digit-only segment before the KEY ({@code redis://h/3/urls}, where the IANA redis
 * scheme puts it); a KEY containing {@code /} after digits is written with {@code %2F}. USER and
 * PASSWORD are percent-decoded ({@code %40} for {@code @}, {@code %3A} for {@code :}); a {@code +}
 * is a plus. HOST is a name (letters, digits, {@code - . _ ~}), an IPv4 address or an IPv6 literal
 * in brackets; PORT defaults to 6379 (26379 for Sentinel). The query sets {@code db} and {@link
 * RedisSettings}' names. A URI that is none of these is an {@link IllegalArgumentException} whose
 * message names the bad part (and never the password).
 *
 * @param form one server, a cluster or a Sentinel group
 * @param tls whether the scheme was {@code rediss}
 * @param user the ACL user, or null
 * @param password the password, or null
 * @param master the Sentinel master's name (the Sentinel form only), or null
 * @param nodes the server, the cluster's seed nodes or the sentinels
 * @param database the database
 * @param key the KEY, or null when the path names none
 * @param query the query string's parameters other than {@code db}, decoded, in order
 */
public record RedisEndpoint(
    Form form,
    boolean tls,
    String user,
    String password,
    String master,
    List<Node> nodes,
    int database,
    String key,
    Map<String, String> query) {

  /** Which kind of deployment a URI names. */
  public enum Form {
    STANDALONE,
    CLUSTER,
    SENTINEL
  }

  /** A host (an IPv6 address without its brackets) and port. */
  public record Node(String host, int port) {
    @Override
    public String toString() {
      return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
  }

  public RedisEndpoint {
    nodes = List.copyOf(nodes);
    query = Collections.unmodifiableMap(new LinkedHashMap<>(query));
  }

  /** Parses {@code uri}; see the class comment. */
  public static RedisEndpoint parse(String uri) {
    if (uri == null) {
      throw new IllegalArgumentException("redis URI is null");
    }
    try {
      return parseOrThrow(uri);
    } catch (Bad b) {
      throw new IllegalArgumentException(
          "not a redis URI: '" + masked(uri) + "': " + b.getMessage());
    }
  }

  /** The settings that the query string sets, applied over {@code base}. */
  public RedisSettings settings(RedisSettings base) {
    return base.with(query);
  }

  /** The nodes as {@code host:port}, comma-separated: how messages name the server. */
  public String hostPorts() {
    List<String> out = new ArrayList<>();
    nodes.forEach(n -> out.add(n.toString()));
    return String.join(",", out);
  }

  @Override
  public String toString() {
    return "RedisEndpoint["
        + form
        + (tls ? " tls" : "")
        + " "
        + (user == null ? "" : user + (password == null ? "" : ":****") + "@")
        + (master == null ? "" : master + "@")
        + hostPorts()
        + " db "
        + database
        + (key == null ? "" : " key '" + key + "'")
        + "]";
  }

  /** A part of the URI that is wrong: the message says which. */
  private static final class Bad extends Exception {
    Bad(String message) {
      super(message, null, false, false);
    }
  }

  private static RedisEndpoint parseOrThrow(String uri) throws Bad {
    int colon = uri.indexOf("://");
    if (colon < 0) {
      throw new Bad(
          "expected redis://[user[:password]@]host[:port][/[db/]KEY], rediss://, "
              + "redis+cluster://host:port,host:port/KEY or redis+sentinel://master@host:port,.../KEY");
    }
    String scheme = uri.substring(0, colon).toLowerCase(Locale.ROOT);
    Form form;
    boolean tls;
    switch (scheme) {
      case "redis":
      case "rediss":
        form = Form.STANDALONE;
        break;
      case "redis+cluster":
      case "rediss+cluster":
        form = Form.CLUSTER;
        break;
      case "redis+sentinel":
        form = Form.SENTINEL;
        break;
      case "rediss+sentinel":
        throw new Bad("TLS to Sentinel (rediss+sentinel) is not supported");
      default:
        throw new Bad(
            "scheme '"
                + uri.substring(0, colon)
                + "' is not one of redis, rediss, redis+cluster, rediss+cluster, redis+sentinel");
    }
    tls = scheme.startsWith("rediss");
    String rest = uri.substring(colon + 3);
    if (rest.indexOf('#') >= 0) {
      throw new Bad("a fragment ('#...') means nothing here; write a '#' in a key as %23");
    }
    int end = 0;
    while (end < rest.length() && rest.charAt(end) != '/' && rest.charAt(end) != '?') {
      end++;
    }
    String authority = rest.substring(0, end);
    String path = "";
    String rawQuery = null;
    int q = rest.indexOf('?', end);
    if (q >= 0) {
      path = rest.substring(end, q);
      rawQuery = rest.substring(q + 1);
    } else {
      path = rest.substring(end);
    }

    String userInfo = null;
    String hosts = authority;
    int at = authority.lastIndexOf('@');
    if (at >= 0) {
      userInfo = authority.substring(0, at);
      hosts = authority.substring(at + 1);
    }
    String master = null;
    if (form == Form.SENTINEL) {
      if (userInfo == null) {
        throw new Bad(
            "the Sentinel form needs the master's name: redis+sentinel://MASTER@host:port,...");
      }
      int m = userInfo.lastIndexOf('@');
      master = decode("the master's name", userInfo.substring(m + 1));
      userInfo = m < 0 ? null : userInfo.substring(0, m);
      if (master.isEmpty()) {
        throw new Bad("the Sentinel master's name is empty");
      }
    }
    String user = null;
    String password = null;
    if (userInfo != null) {
      checkChars("userinfo", userInfo, ":");
      int c = userInfo.indexOf(':');
      String u = c < 0 ? userInfo : userInfo.substring(0, c);
      user = u.isEmpty() ? null : decode("the user", u);
      password = c < 0 ? null : decode("the password", userInfo.substring(c + 1));
    }

    List<Node> nodes = new ArrayList<>();
    int defaultPort = form == Form.SENTINEL ? 26379 : 6379;
    if (hosts.isEmpty()) {
      throw new Bad("no host");
    }
    for (String h : hosts.split(",", -1)) {
      nodes.add(node(h, defaultPort));
    }
    if (form == Form.STANDALONE && nodes.size() > 1) {
      throw new Bad(
          "several hosts ('" + hosts + "') need redis+cluster:// or redis+sentinel://MASTER@");
    }

    int database = -1;
    String key = null;
    if (!path.isEmpty() && !path.equals("/")) {
      String p = path.substring(1);
      checkChars("path", p, ":@/");
      int slash = p.indexOf('/');
      if (slash > 0 && p.substring(0, slash).matches("[0-9]{1,9}")) {
        database = Integer.parseInt(p.substring(0, slash));
        p = p.substring(slash + 1);
      }
      key = p.isEmpty() ? null : decode("the key", p);
    }

    Map<String, String> query = new LinkedHashMap<>();
    if (rawQuery != null && !rawQuery.isEmpty()) {
      for (String pair : rawQuery.split("&", -1)) {
        int eq = pair.indexOf('=');
        if (eq <= 0) {
          throw new Bad("query parameter '" + pair + "' is not NAME=VALUE");
        }
        String name = pair.substring(0, eq);
        String value = decode("parameter " + name, pair.substring(eq + 1));
        if (name.equals("db")) {
          if (!value.matches("[0-9]{1,9}")) {
            throw new Bad("db must be a database number, was '" + value + "'");
          }
          if (database >= 0) {
            throw new Bad("the database is given twice (in the path and as db=" + value + ")");
          }
          database = Integer.parseInt(value);
        } else if (query.put(name, value) != null) {
          throw new Bad("parameter '" + name + "' is given twice");
        }
      }
    }
    if (form == Form.CLUSTER && database > 0) {
      throw new Bad("a cluster has database 0 only, was " + database);
    }
    try {
      RedisSettings.defaults().with(query); // refuses bad values now, before anything connects
    } catch (IllegalArgumentException e) {
      throw new Bad(e.getMessage());
    }
    return new RedisEndpoint(
        form, tls, user, password, master, nodes, Math.max(database, 0), key, query);
  }

  private static Node node(String h, int defaultPort) throws Bad {
    String host;
    String port = null;
    if (h.startsWith("[")) {
      int close = h.indexOf(']');
      if (close < 0) {
        throw new Bad("IPv6 host '" + h + "' lacks its ']'");
      }
      host = h.substring(1, close);
      if (host.isEmpty() || !host.matches("[0-9A-Fa-f:.]+(%25[A-Za-z0-9._~-]+)?")) {
        throw new Bad("IPv6 host '" + h + "' is not an IPv6 address");
      }
      host = host.replace("%25", "%");
      String after = h.substring(close + 1);
      if (!after.isEmpty()) {
        if (!after.startsWith(":")) {
          throw new Bad("'" + after + "' after IPv6 host '[" + host + "]'");
        }
        port = after.substring(1);
      }
    } else {
      int c = h.lastIndexOf(':');
      host = c < 0 ? h : h.substring(0, c);
      port = c < 0 ? null : h.substring(c + 1);
      if (host.isEmpty()) {
        throw new Bad("no host" + (h.isEmpty() ? "" : " before ':" + port + "'"));
      }
      if (!host.matches("[A-Za-z0-9._~-]+")) {
        throw new Bad(
            "host '"
                + host
                + "' has characters a host name cannot have (letters, digits, '-', '.', '_', '~')");
      }
    }
    if (port == null || port.isEmpty()) {
      return new Node(host, defaultPort);
    }
    if (!port.matches("[0-9]{1,5}")
        || Integer.parseInt(port) < 1
        || Integer.parseInt(port) > 65535) {
      throw new Bad("port '" + port + "' of host '" + host + "' is not in [1, 65535]");
    }
    return new Node(host, Integer.parseInt(port));
  }

  /**
   * Refuses characters RFC 3986 does not allow in this part: besides unreserved ones, sub-delims,
   * {@code extra} and percent-escapes, only non-ASCII letters (written as UTF-8).
   */
  private static void checkChars(String part, String s, String extra) throws Bad {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean ok =
          c >= 'a' && c <= 'z'
              || c >= 'A' && c <= 'Z'
              || c >= '0' && c <= '9'
              || "-._~!$&'()*+,;=%".indexOf(c) >= 0
              || extra.indexOf(c) >= 0
              || c > 0x7f && !Character.isISOControl(c) && !Character.isWhitespace(c);
      if (!ok) {
        String shown =
            c < 0x20 || c == 0x7f ? String.format(Locale.ROOT, "\\u%04x", (int) c) : "" + c;
        throw new Bad(
            "the "
                + part
                + " has a '"
                + shown
                + "', which must be percent-encoded (%"
                + String.format(Locale.ROOT, "%02X", (int) c & 0xff)
                + ")");
      }
    }
  }

  /** RFC 3986 percent-decoding to UTF-8; a '+' stays a '+' (it is not HTML form encoding). */
  private static String decode(String what, String s) throws Bad {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%') {
        int hi = i + 2 < s.length() ? Character.digit(s.charAt(i + 1), 16) : -1;
        int lo = hi < 0 ? -1 : Character.digit(s.charAt(i + 2), 16);
        if (lo < 0) {
          throw new Bad(what + " has a '%' not followed by two hex digits");
        }
        bytes.write(hi << 4 | lo);
        i += 2;
      } else {
        byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        if (Character.isHighSurrogate(c) && i + 1 < s.length()) {
          b = s.substring(i, i + 2).getBytes(StandardCharsets.UTF_8);
          i++;
        }
        bytes.write(b, 0, b.length);
      }
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray()))
          .toString();
    } catch (CharacterCodingException e) {
      throw new Bad(what + " is not UTF-8 once percent-decoded");
    }
  }

  /** {@code uri} with its passwords, if any, replaced by {@code ****}, for messages. */
  static String masked(String uri) {
    uri = uri.replaceAll("(?i)((?:trust|key)storePassword=)[^&#]*", "$1****");
    int start = uri.indexOf("://");
    if (start < 0) {
      return uri;
    }
    start += 3;
    int end = start;
    while (end < uri.length() && "/?#".indexOf(uri.charAt(end)) < 0) {
      end++;
    }
    String authority = uri.substring(start, end);
    int at = authority.lastIndexOf('@');
    if (uri.toLowerCase(Locale.ROOT).startsWith("redis+sentinel") && at > 0) {
      at = authority.lastIndexOf('@', at - 1); // MASTER@ follows the user information
    }
    int c = authority.indexOf(':');
    if (at < 0 || c < 0 || c > at) {
      return uri;
    }
    return uri.substring(0, start + c + 1) + "****" + uri.substring(start + at);
  }
}
