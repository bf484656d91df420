package io.github.probkit.redis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertificateException;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS for {@code rediss://}: the context from {@link RedisSettings}' stores, a handshake bounded by
 * the connect timeout, and what a failed handshake means in words.
 *
 * <p>Jedis leaves the handshake to the first command, under the socket timeout: against a plain
 * port, whose Redis waits for a line end that a ClientHello rarely holds, that is a silent wait per
 * attempt reported as "timed out". So the socket factory here completes the handshake itself.
 */
final class Tls {
  private Tls() {}

  /** The socket factory for these settings' stores (the JVM's defaults for those not given). */
  static SSLSocketFactory socketFactory(RedisSettings s) {
    try {
      TrustManagerFactory tmf = null;
      if (s.truststore() != null) {
        tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(load("truststore", s.truststore(), s.truststorePassword()));
      }
      KeyManagerFactory kmf = null;
      if (s.keystore() != null) {
        char[] pw = s.keystorePassword() == null ? new char[0] : s.keystorePassword().toCharArray();
        kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(load("keystore", s.keystore(), s.keystorePassword()), pw);
      }
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(
          kmf == null ? null : kmf.getKeyManagers(),
          tmf == null ? null : tmf.getTrustManagers(),
          null);
      return new Handshaking(ctx.getSocketFactory(), s);
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("TLS cannot be set up: " + e.getMessage(), e);
    }
  }

  private static KeyStore load(String what, Path file, String password) {
    try {
      return KeyStore.getInstance(file.toFile(), password == null ? null : password.toCharArray());
    } catch (IOException | GeneralSecurityException e) {
      String why =
          e.getCause() instanceof java.security.UnrecoverableKeyException
              ? "wrong password"
              : String.valueOf(e.getMessage());
      throw new IllegalArgumentException(
          what + " '" + file + "' cannot be read as a PKCS#12 or JKS store: " + why, e);
    }
  }

  /** The TLS failure among {@code e}'s causes, or null. */
  static SSLException find(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SSLException) {
        return (SSLException) t;
      }
    }
    return null;
  }

  /** What a failed handshake means, for the one-line error. */
  static String why(SSLException e, RedisSettings s) {
    String m = String.valueOf(e.getMessage());
    if (m.startsWith("no TLS reply")) {
      return "TLS handshake failed: " + m;
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof CertPathBuilderException
          || String.valueOf(t.getMessage()).contains("PKIX path")) {
        return "TLS handshake failed: the server's certificate is not trusted (it is not signed by a"
            + " certificate of "
            + (s.truststore() == null
                ? "the JVM's default truststore; give the server's CA in truststore=FILE"
                : "truststore '" + s.truststore() + "'")
            + ")";
      }
      if (t instanceof CertificateException
          && String.valueOf(t.getMessage()).contains("subject alternative")) {
        return "TLS handshake failed: the server's certificate does not name the host connected to"
            + " ("
            + t.getMessage()
            + ")";
      }
    }
    if (m.contains("certificate_required") || m.contains("bad_certificate")) {
      return "TLS handshake failed: the server refused "
          + (s.keystore() == null
              ? "to go on without a client certificate (give one in keystore=FILE)"
              : "the client certificate of keystore '" + s.keystore() + "'")
          + " ("
          + m
          + ")";
    }
    if (m.contains("Unsupported or unrecognized SSL message")
        || m.contains("plaintext")
        || m.contains("Remote host terminated")) {
      return "TLS handshake failed: the server does not speak TLS on this port (a plain port? then"
          + " use redis://) ("
          + m
          + ")";
    }
    return "TLS handshake failed: " + m;
  }

  /** Completes each socket's handshake within the connect timeout before Jedis uses it. */
  private static final class Handshaking extends SSLSocketFactory {
    private final SSLSocketFactory tls;
    private final int handshakeMillis;
    private final int socketMillis;

    Handshaking(SSLSocketFactory tls, RedisSettings s) {
      this.tls = tls;
      this.handshakeMillis = (int) s.connectTimeout().toMillis();
      this.socketMillis = (int) s.socketTimeout().toMillis();
    }

    @Override
    public Socket createSocket(Socket s, String host, int port, boolean autoClose)
        throws IOException {
      SSLSocket ssl = (SSLSocket) tls.createSocket(s, host, port, autoClose);
      SSLParameters p = ssl.getSSLParameters();
      p.setEndpointIdentificationAlgorithm("HTTPS"); // the certificate must name the host
      ssl.setSSLParameters(p);
      try {
        ssl.setSoTimeout(handshakeMillis);
        ssl.startHandshake();
        ssl.setSoTimeout(socketMillis);
        return ssl;
      } catch (SocketTimeoutException e) {
        ssl.close();
        SSLHandshakeException t =
            new SSLHandshakeException(
                "no TLS reply from "
                    + host
                    + ":"
                    + port
                    + " within the connect timeout of "
                    + handshakeMillis
                    + " ms (a plain, non-TLS port? then use redis://)");
        t.initCause(e);
        throw t;
      } catch (IOException e) {
        ssl.close();
        throw e;
      }
    }

    @Override
    public String[] getDefaultCipherSuites() {
      return tls.getDefaultCipherSuites();
    }

    @Override
    public String[] getSupportedCipherSuites() {
      return tls.getSupportedCipherSuites();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
      return tls.createSocket(host, port);
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress local, int localPort)
        throws IOException {
      return tls.createSocket(host, port, local, localPort);
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
      return tls.createSocket(host, port);
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress local, int localPort)
        throws IOException {
      return tls.createSocket(address, port, local, localPort);
    }
  }
}
