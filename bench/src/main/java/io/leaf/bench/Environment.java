package io.leaf.bench;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** The machine a run was measured on, as the results must state it. */
record Environment(int cores, String cpu, long ramBytes, String jvm, String os) {

  static Environment current() {
    OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    return new Environment(
        Runtime.getRuntime().availableProcessors(),
        cpuModel(),
        os.getTotalMemorySize(),
        System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
        System.getProperty("os.name")
            + " "
            + System.getProperty("os.version")
            + " "
            + System.getProperty("os.arch"));
  }

  String describe() {
    return String.format(
        Locale.ROOT,
        "%d cores (%s), %.1f GiB RAM, %s, %s",
        cores,
        cpu,
        ramBytes / (1024.0 * 1024 * 1024),
        jvm,
        os);
  }

  /** The CPU's model name where Linux tells it; "unknown CPU" elsewhere. */
  private static String cpuModel() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
          .filter(line -> line.startsWith("model name"))
          .map(line -> line.substring(line.indexOf(':') + 1).trim())
          .findFirst()
          .orElse("unknown CPU");
    } catch (IOException | RuntimeException e) {
      return "unknown CPU";
    }
  }
}
