package io.leaf.server.testing;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The JVM options and class path of a server child process: C1 only, the serial collector, and a
 * class-data sharing archive of the server's start, made once per test JVM. A child then reaches
 * "Leaf listening" on about a quarter of the CPU of a plain JVM.
 */
final class ChildJvm {

  /*
   * CDS archives classes from jars only (a non-empty directory on the class path refuses the
   * archive), so the children run on jars of the class directories (target/classes, and in a
   * reactor build leaf-proto's) written when the test JVM first starts one: the classes just
   * compiled. Test classes are not on the children's path. Should
   * anything here fail, children start on the test class path without an archive, as before:
   * slower, never different.
   */

  /** HotSpot's flags; none on another JVM (OpenJ9 would refuse them). */
  private static final List<String> FLAGS =
      System.getProperty("java.vm.name", "").contains("OpenJ9")
          ? List.of()
          : List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

  private static ChildJvm instance;

  private final List<String> options;
  private final String classPath;

  private ChildJvm(List<String> options, String classPath) {
    this.options = options;
    this.classPath = classPath;
  }

  /** The options and class path every child starts with (prepared on the first call). */
  static synchronized ChildJvm get() {
    if (instance == null) {
      instance = prepare();
    }
    return instance;
  }

  /** JVM options: the flags, and the archive if one was made. */
  List<String> options() {
    return options;
  }

  String classPath() {
    return classPath;
  }

  private static ChildJvm prepare() {
    String testPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    try {
      Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "child-jvm-");
      dir.toFile().deleteOnExit();
      List<String> entries = new ArrayList<>();
      for (String e : testPath.split(File.pathSeparator)) {
        Path p = Path.of(e);
        if (e.endsWith(".jar") && Files.isRegularFile(p)) {
          entries.add(e);
        } else if (Files.isDirectory(p) && !p.endsWith("test-classes")) {
          // target/classes, and a sibling module's in a reactor build (leaf-proto's)
          entries.add(jarOf(p, dir.resolve("classes-" + entries.size() + ".jar")));
        }
      }
      String path = String.join(File.pathSeparator, entries);
      Path archive = dir.resolve("server.jsa");
      if (!FLAGS.isEmpty()) {
        train(path, archive, dir);
      }
      if (FLAGS.isEmpty() || !Files.isRegularFile(archive)) {
        System.err.println("[leaf-tests] no CDS archive for child servers; they start without");
        return new ChildJvm(FLAGS, path);
      }
      archive.toFile().deleteOnExit();
      List<String> options = new ArrayList<>(FLAGS);
      options.add("-XX:SharedArchiveFile=" + archive);
      return new ChildJvm(List.copyOf(options), path);
    } catch (IOException | RuntimeException e) {
      System.err.println("[leaf-tests] child servers start on the test class path: " + e);
      return new ChildJvm(FLAGS, testPath);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new ChildJvm(FLAGS, testPath);
    }
  }

  /** {@code classes} as a jar at {@code jar}; returns its path. */
  private static String jarOf(Path classes, Path jar) throws IOException {
    try (OutputStream file = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(file);
        Stream<Path> files = Files.walk(classes)) {
      for (Path p : files.filter(Files::isRegularFile).sorted(Comparator.naturalOrder()).toList()) {
        String name = classes.relativize(p).toString().replace(File.separatorChar, '/');
        out.putNextEntry(new JarEntry(name));
        Files.copy(p, out);
        out.closeEntry();
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    jar.toFile().deleteOnExit();
    return jar.toString();
  }

  /**
   * One start on a throw-away H2 file with {@code -XX:ArchiveClassesAtExit}, stopped with SIGTERM
   * once its worker ID is leased: the archive holds the classes of a start and a graceful stop.
   */
  private static void train(String path, Path archive, Path dir)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(FLAGS);
    command.add("-XX:ArchiveClassesAtExit=" + archive);
    command.addAll(
        List.of(
            "-cp",
            path,
            "io.leaf.server.Main",
            "--port",
            "0",
            "--db-url",
            "jdbc:h2:file:" + dir.resolve("training") + ";MODE=MySQL"));
    Path log = dir.resolve("training.log");
    for (String f : List.of("training.log", "training.mv.db", "training.trace.db")) {
      dir.resolve(f).toFile().deleteOnExit();
    }
    Process p =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (p.isAlive() && System.nanoTime() < deadline) {
        if (Files.readString(log, StandardCharsets.UTF_8).contains("leased; IDs start above")) {
          p.destroy(); // SIGTERM: a graceful stop, which writes the archive
          break;
        }
        p.waitFor(50, TimeUnit.MILLISECONDS);
      }
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    } finally {
      if (p.isAlive()) {
        p.destroyForcibly();
      }
    }
  }
}
