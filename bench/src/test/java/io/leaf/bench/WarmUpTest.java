package io.leaf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

class WarmUpTest {

  private static WarmUp.Step rates(List<double[]> runs) {
    Iterator<double[]> it = runs.iterator();
    return it::next;
  }

  @Test
  void untilSettled_risingThenFlat_stopsOnceTwoRunsInARowAgree() throws Exception {
    int runs =
        WarmUp.untilSettled(
            false,
            "test",
            rates(
                List.of(
                    new double[] {8_000, 20_000}, new double[] {12_000, 28_000},
                    new double[] {25_000, 30_000}, new double[] {30_000, 31_000},
                    new double[] {30_500, 30_800}, new double[] {1, 1})));
    assertEquals(5, runs, "every rate within 10% of the run before only at the fifth");
  }

  @Test
  void untilSettled_flatFromTheStart_stillRunsTheMinimum() throws Exception {
    int runs =
        WarmUp.untilSettled(
            false,
            "test",
            rates(
                List.of(
                    new double[] {100},
                    new double[] {100},
                    new double[] {100},
                    new double[] {100})));
    assertEquals(WarmUp.MIN_RUNS, runs);
  }

  @Test
  void untilSettled_neverSettles_stopsAtTheMaximum() throws Exception {
    double[][] growing = new double[WarmUp.MAX_RUNS + 1][];
    for (int i = 0; i < growing.length; i++) {
      growing[i] = new double[] {1000 * Math.pow(2, i)};
    }
    assertEquals(WarmUp.MAX_RUNS, WarmUp.untilSettled(false, "test", rates(List.of(growing))));
    assertEquals(1, WarmUp.untilSettled(true, "test", rates(List.of(growing))), "quick: once");
  }
}
