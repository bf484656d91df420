package io.github.probkit.redis;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;

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
      KeyManager[] keys = {new NoCertificate()};
      if (s.keystore() != null) {
        char[] pw = s.keystorePassword() == null ? new char[0] : s.keystorePassword().toCharArray();
        KeyManagerFactory kmf =
            KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(load("keystore", s.keystore(), s.keystorePassword()), pw);
        keys = kmf.getKeyManagers();
      }
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(keys, tmf == null ? null : tmf.getTrustManagers(), null);
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

  /**
   * No client certificate, noting on the handshaking thread that the server asked for one. In TLS
   * 1.3 a server that requires one ({@code tls-auth-clients yes}) says so only after the client's
   * handshake is over, and the client's first write then fails as a broken pipe.
   */
  private static final class NoCertificate extends X509ExtendedKeyManager {
    static final ThreadLocal<Boolean> ASKED = ThreadLocal.withInitial(() -> false);

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
      ASKED.set(true);
      return null;
    }

    @Override
    public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
      ASKED.set(true);
      return null;
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
      return null;
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
      return null;
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
      return null;
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
      return null;
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
      return null;
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
    if (m.startsWith("no client certificate")
        || m.contains("certificate_required")
        || m.contains("bad_certificate")) {
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
        NoCertificate.ASKED.set(false);
        ssl.startHandshake();
        if (NoCertificate.ASKED.get()) {
          ping(ssl);
        }
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

    /**
     * One inline {@code PING} and its one-line reply (PONG, or NOAUTH before authentication), so
     * that a server refusing to go on without a client certificate says so now.
     */
    private static void ping(SSLSocket ssl) throws IOException {
      try {
        ssl.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
        ssl.getOutputStream().flush();
        InputStream in = ssl.getInputStream();
        int b;
        while ((b = in.read()) != '\n') {
          if (b < 0) {
            throw new EOFException("connection closed");
          }
        }
      } catch (IOException e) {
        SSLHandshakeException t =
            new SSLHandshakeException(
                "no client certificate was given, which the server asked for, and it closed the"
                    + " connection ("
                    + e.getMessage()
                    + ")");
        t.initCause(e);
        throw t;
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
