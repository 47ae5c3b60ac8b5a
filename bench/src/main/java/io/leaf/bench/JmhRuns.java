package io.leaf.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/** Runs one JMH benchmark method at a time and returns the score of every measurement iteration. */
final class JmhRuns {

  private final BenchOptions options;

  JmhRuns(BenchOptions options) {
    this.options = options;
  }

  /** How the runs are configured, for the table. */
  String describe() {
    return "JMH "
        + (options.rounds().jmh().forks() == 0
            ? "in-process"
            : options.rounds().jmh().forks() + " fork")
        + ", "
        + options.rounds().jmh().warmupIterations()
        + "×"
        + options.rounds().jmh().warmupTime().toMillis()
        + " ms warm-up, "
        + options.rounds().count()
        + "×"
        + options.rounds().jmh().iterationTime().toMillis()
        + " ms measured";
  }

  /**
   * @param method a {@code @Benchmark} method of {@code benchmarkClass}
   * @param systemProperties {@code -Dkey=value} passed to the forked JVM (and set here without
   *     fork)
   * @return operations per second of each measurement iteration
   */
  List<Double> run(Class<?> benchmarkClass, String method, int threads, String... systemProperties)
      throws RunnerException {
    ChainedOptionsBuilder builder =
        new OptionsBuilder()
            .include("^" + benchmarkClass.getName().replace(".", "\\.") + "\\." + method + "$")
            .threads(threads)
            .forks(options.rounds().jmh().forks())
            .warmupIterations(options.rounds().jmh().warmupIterations())
            .warmupTime(TimeValue.milliseconds(options.rounds().jmh().warmupTime().toMillis()))
            .measurementIterations(options.rounds().count())
            .measurementTime(
                TimeValue.milliseconds(options.rounds().jmh().iterationTime().toMillis()))
            .timeUnit(TimeUnit.SECONDS)
            .shouldFailOnError(true)
            .verbosity(VerboseMode.SILENT);
    if (systemProperties.length > 0) {
      builder.jvmArgsAppend(systemProperties);
      if (options.rounds().jmh().forks() == 0) {
        for (String property : systemProperties) {
          String[] kv = property.substring(2).split("=", 2);
          System.setProperty(kv[0], kv[1]);
        }
      }
    }
    // JMH refuses to start while another JMH run holds /tmp/jmh.lock; on a shared machine that is
    // expected, and the medians and same-run ratios are what absorb the noise.
    System.setProperty("jmh.ignoreLock", "true");
    RunResult result = new Runner(builder.build()).runSingle();
    List<Double> scores = new ArrayList<>();
    for (BenchmarkResult fork : result.getBenchmarkResults()) {
      for (IterationResult iteration : fork.getIterationResults()) {
        scores.add(iteration.getPrimaryResult().getScore());
      }
    }
    if (scores.isEmpty()) {
      throw new IllegalStateException("JMH returned no iterations for " + method);
    }
    return scores;
  }
}
