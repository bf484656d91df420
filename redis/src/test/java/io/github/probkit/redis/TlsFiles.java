package io.github.probkit.redis;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A test CA, a server certificate for 127.0.0.1 and localhost and a client certificate it signed,
 * made with openssl and keytool in a directory: PEM files for redis-server, a PKCS#12 truststore
 * and a client keystore (password {@link #PASSWORD}) for the client.
 */
final class TlsFiles {
  static final String PASSWORD = "changeit";

  final Path dir;

  private TlsFiles(Path dir) {
    this.dir = dir;
  }

  /** Makes them in {@code dir}; skips the calling test when openssl or keytool is missing. */
  static TlsFiles make(Path dir) throws IOException, InterruptedException {
    assumeTrue(
        onPath("openssl") && onPath("keytool"),
        "openssl and keytool are needed to make the TLS tests' certificates; TLS tests skipped");
    Files.writeString(dir.resolve("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
    run(
        dir,
        "openssl",
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
        "-days",
        "2",
        "-subj",
        "/CN=probkit test CA");
    for (String who : new String[] {"server", "client"}) {
      run(
          dir,
          "openssl",
          "req",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-keyout",
          who + ".key",
          "-out",
          who + ".csr",
          "-subj",
          "/CN=probkit test " + who);
      List<String> sign =
          new ArrayList<>(
              List.of(
                  "openssl",
                  "x509",
                  "-req",
                  "-in",
                  who + ".csr",
                  "-CA",
                  "ca.crt",
                  "-CAkey",
                  "ca.key",
                  "-CAcreateserial",
                  "-out",
                  who + ".crt",
                  "-days",
                  "2"));
      if (who.equals("server")) {
        sign.addAll(List.of("-extfile", "server.ext"));
      }
      run(dir, sign.toArray(new String[0]));
    }
    run(
        dir,
        "openssl",
        "pkcs12",
        "-export",
        "-in",
        "client.crt",
        "-inkey",
        "client.key",
        "-out",
        "client.p12",
        "-passout",
        "pass:" + PASSWORD);
    run(
        dir,
        "keytool",
        "-importcert",
        "-noprompt",
        "-alias",
        "ca",
        "-file",
        "ca.crt",
        "-keystore",
        "trust.p12",
        "-storetype",
        "PKCS12",
        "-storepass",
        PASSWORD);
    return new TlsFiles(dir);
  }

  /** redis-server's arguments for TLS on {@code tlsPort} (its plain port stays open). */
  List<String> serverArgs(int tlsPort, boolean clientCertificates) {
    return List.of(
        "--tls-port", Integer.toString(tlsPort),
        "--tls-cert-file", dir.resolve("server.crt").toString(),
        "--tls-key-file", dir.resolve("server.key").toString(),
        "--tls-ca-cert-file", dir.resolve("ca.crt").toString(),
        "--tls-auth-clients", clientCertificates ? "yes" : "no");
  }

  /** The query string that gives the truststore, and the client keystore when {@code client}. */
  String query(boolean client) {
    return "truststore="
        + dir.resolve("trust.p12")
        + "&truststorePassword="
        + PASSWORD
        + (client
            ? "&keystore=" + dir.resolve("client.p12") + "&keystorePassword=" + PASSWORD
            : "");
  }

  private static boolean onPath(String tool) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, tool))) {
        return true;
      }
    }
    return false;
  }

  private static void run(Path dir, String... cmd) throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(cmd)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("tools.log").toFile())
            .start();
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException(
          String.join(" ", cmd) + " failed: " + Files.readString(dir.resolve("tools.log")));
    }
  }
}
