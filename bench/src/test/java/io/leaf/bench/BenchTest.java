package io.leaf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The benchmark program runs end to end on a tiny configuration; no figure is asserted. */
@Tag("slow")
class BenchTest {

  @Test
  void run_quick_writesTableWithEveryMeasure(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("results.md");

    String printed = Bench.run(BenchOptions.parse("--quick", "--out", out.toString()));

    assertTrue(Files.exists(out), "results file written to " + out);
    String written = Files.readString(out);
    assertEquals(printed, written, "the printed table is the written one");
    List<String> rows = written.lines().filter(l -> l.startsWith("| ")).toList();
    for (String measure :
        List.of(
            "| P1 unary NextId vs Health/Check, 1 in flight |",
            "| P1 unary NextId vs Health/Check, 8 in flight |",
            "| P1 unary NextId vs Health/Check, 64 in flight |",
            "| P2 NextIdBatch stream vs unary NextId, chunk 1,000 |",
            "| P2 NextIdBatch stream vs unary NextId, chunk 10,000 |",
            "| P3 NextId latency with slow segment loads, step 100 vs 1,000,000 |",
            "| P1 from h2load (C client): NextId vs Health/Check, 64 in flight |",
            "| Isolated server: h2load NextId vs Health/Check, -c 1 -m 1 |",
            "| Isolated server: h2load NextId vs Health/Check, -c 8 -m 1 |",
            "| Isolated server: h2load NextId vs Health/Check, -c 64 -m 1 |",
            "| Server threads with 400 NextId calls waiting on a stalled database |",
            "| Second client's NextId while 80 NextIdBatch streams are unread |",
            "| P4 SegmentAllocator.nextId vs AtomicLong, 1 thread |",
            "| P4 SegmentAllocator.nextId vs AtomicLong, 2 threads |",
            "| P5 CachedIdGenerator.next() vs AtomicLong, 1 thread |",
            "| P5 CachedIdGenerator.next() vs AtomicLong, 2 threads |",
            "| P6 ReserveIds vs unary NextId |",
            "| P7 CachedIdGenerator.next() vs CosId SegmentChainId vs AtomicLong, 1 thread |",
            "| P7 CachedIdGenerator.next() vs CosId SegmentChainId vs AtomicLong, 2 threads |",
            "| P8 NextId vs a bare grpc-java server's Health/Check, h2load -c 8 -m 1 |",
            "| P8 NextId vs a bare grpc-java server's Health/Check, h2load -c 64 -m 1 |",
            "| F1 NextFormattedId (plain) vs NextId, h2load -c 8 -m 1 |",
            "| F1 NextFormattedId (opaque) vs NextId, h2load -c 64 -m 1 |",
            "| F2 NextFormattedIdBatch (plain) vs unary NextFormattedId, chunk 10,000 |",
            "| P9 NextId with a scoped token ÷ without tokens, h2load -c 8 -m 1 |",
            "| P9 NextId with a scoped token ÷ without tokens, h2load -c 64 -m 1 |",
            "| P10 unary NextId with --region vs without |",
            "| P12 launch → SERVING, idle RSS, threads, on the embedded H2 |",
            "| Heap per cached tag |")) {
      assertTrue(
          rows.stream().anyMatch(r -> r.startsWith(measure)),
          "a row for " + measure + " in:\n" + written);
    }
    assertFalse(
        written.contains("NaN") || written.contains("Infinity"),
        "every figure is a number:\n" + written);
    assertTrue(written.contains("Machine: "), "the machine is described:\n" + written);
    String json = Files.readString(out.resolveSibling("results.json"));
    assertEquals(
        rows.size() - 1,
        json.split("\"measure\"", -1).length - 1,
        "every table row (less the header) in results.json:\n" + json);
  }
}
