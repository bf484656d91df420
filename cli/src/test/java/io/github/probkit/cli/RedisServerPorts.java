package io.github.probkit.cli;

import java.io.IOException;
import java.net.ServerSocket;

/** A loopback port nothing listens on. */
final class RedisServerPorts {
  private RedisServerPorts() {}

  static int free() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
