package io.leaf.server.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A Linux network namespace joined to the root namespace by one veth pair on a private /30: the
 * root side holds {@link #hostAddress}, the namespace side {@link #address}, so a process started
 * with {@link #exec} reaches the test JVM only through that link, and the link can be cut and
 * restored. {@link #close()} kills whatever still runs inside and removes both.
 *
 * <p>Each namespace records the test JVM that made it under {@link #OWNERS}; {@link
 * #removeLeftovers} removes namespaces of a prefix whose maker is gone (a run killed before its
 * cleanup), never those of a run still alive.
 */
public final class NetworkNamespace implements AutoCloseable {

  /** Where each namespace's maker (a process ID) is recorded, one file per namespace. */
  static final Path OWNERS = Path.of(System.getProperty("java.io.tmpdir"), "leaf-netns-owners");

  private static final List<String> IP_PATHS =
      List.of("/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip");

  /** The namespace's name, e.g. {@code leafA-3f9c2a}. */
  public final String name;

  /** The namespace side's IPv4 address: where the root namespace reaches its processes. */
  public final String address;

  /** The root side's IPv4 address: where the namespace's processes reach the test JVM. */
  public final String hostAddress;

  private final String hostLink;

  private NetworkNamespace(String name, String address, String hostAddress, String hostLink) {
    this.name = name;
    this.address = address;
    this.hostAddress = hostAddress;
    this.hostLink = hostLink;
  }

  /**
   * Skips the test (with a {@code SKIPPED network namespace test} line) unless it runs as root and
   * finds {@code ip}; where both hold, any failure to build a namespace fails the test.
   */
  public static void assumeAvailable() throws IOException, InterruptedException {
    String reason = null;
    if (IP_PATHS.stream().noneMatch(p -> Files.isExecutable(Path.of(p)))) {
      reason = "the ip command (iproute2) is not installed";
    } else if (!"0".equals(output("id", "-u").strip())) {
      reason = "creating network namespaces needs root";
    }
    if (reason != null) {
      System.err.println("[leaf-tests] SKIPPED network namespace test: " + reason);
      Assumptions.abort("SKIPPED: " + reason);
    }
  }

  /**
   * A new namespace {@code prefix-<random>} with a veth pair on the /30 starting at {@code subnet}
   * (e.g. {@code 10.250.7.0}: the root side takes {@code .1}, the namespace {@code .2}), both ends
   * and the namespace's loopback up.
   */
  public static NetworkNamespace create(String prefix, String subnet)
      throws IOException, InterruptedException {
    String suffix = String.format("%06x", ThreadLocalRandom.current().nextInt(1 << 24));
    String name = prefix + "-" + suffix;
    String[] octets = subnet.split("\\.");
    int last = Integer.parseInt(octets[3]);
    String net = octets[0] + "." + octets[1] + "." + octets[2] + ".";
    String host = net + (last + 1);
    String inside = net + (last + 2);
    // Interface names hold at most 15 characters: "leafA-3f9c2a" plus "h" or "n".
    String hostLink = name + "h";
    String nsLink = name + "n";
    Files.createDirectories(OWNERS);
    Files.writeString(OWNERS.resolve(name), Long.toString(ProcessHandle.current().pid()));
    NetworkNamespace ns = new NetworkNamespace(name, inside, host, hostLink);
    try {
      run("ip", "netns", "add", name);
      run("ip", "link", "add", hostLink, "type", "veth", "peer", "name", nsLink, "netns", name);
      run("ip", "addr", "add", host + "/30", "dev", hostLink);
      run("ip", "link", "set", hostLink, "up");
      run("ip", "netns", "exec", name, "ip", "addr", "add", inside + "/30", "dev", nsLink);
      run("ip", "netns", "exec", name, "ip", "link", "set", nsLink, "up");
      run("ip", "netns", "exec", name, "ip", "link", "set", "lo", "up");
    } catch (IOException | RuntimeException e) {
      ns.close();
      throw e;
    }
    return ns;
  }

  /** The command prefix that runs a program inside this namespace. */
  public List<String> exec() {
    return List.of("ip", "netns", "exec", name);
  }

  /** Takes the root side of the link down: nothing passes between the namespace and the host. */
  public void cut() throws IOException, InterruptedException {
    run("ip", "link", "set", hostLink, "down");
  }

  /** Brings the root side of the link up again. */
  public void restore() throws IOException, InterruptedException {
    run("ip", "link", "set", hostLink, "up");
  }

  /** Kills every process left inside, then removes the namespace and its veth pair. */
  @Override
  public void close() throws IOException, InterruptedException {
    remove(name);
    // The pair dies with its namespace end; this only matters if the namespace never got it.
    quietly("ip", "link", "del", hostLink);
  }

  /**
   * Removes every namespace (and root-side link) named {@code prefix-…} whose maker recorded under
   * {@link #OWNERS} is no longer running, or which has no record.
   */
  public static void removeLeftovers(String prefix) throws IOException, InterruptedException {
    for (String line : output("ip", "netns", "list").split("\n")) {
      String ns = line.strip().split("\\s+")[0];
      if (ns.startsWith(prefix + "-") && !makerAlive(ns)) {
        System.err.println("[leaf-tests] removing namespace " + ns + " left by an earlier run");
        remove(ns);
      }
    }
    for (String line : output("ip", "-o", "link", "show").split("\n")) {
      String[] fields = line.split(":\\s+");
      if (fields.length > 1) {
        String link = fields[1].split("@")[0];
        String ns = link.substring(0, Math.max(0, link.length() - 1));
        if (link.startsWith(prefix + "-") && !makerAlive(ns)) {
          quietly("ip", "link", "del", link);
        }
      }
    }
  }

  private static boolean makerAlive(String ns) throws IOException {
    Path owner = OWNERS.resolve(ns);
    if (!Files.exists(owner)) {
      return false;
    }
    long pid = Long.parseLong(Files.readString(owner).strip());
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  private static void remove(String ns) throws IOException, InterruptedException {
    for (String pid : output("ip", "netns", "pids", ns).split("\\s+")) {
      if (pid.matches("\\d+")) {
        quietly("kill", "-9", pid);
      }
    }
    quietly("ip", "netns", "del", ns);
    Files.deleteIfExists(OWNERS.resolve(ns));
  }

  /** Runs a command; fails with its output unless it exits 0. */
  private static void run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException(String.join(" ", command) + " failed: " + out.strip());
    }
  }

  private static void quietly(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    p.waitFor(30, TimeUnit.SECONDS);
  }

  private static String output(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor(30, TimeUnit.SECONDS);
    return out;
  }
}
