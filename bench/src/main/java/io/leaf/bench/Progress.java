package io.leaf.bench;

import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** Progress lines for the person waiting: wall-clock time, then what is happening. */
final class Progress {

  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss");

  private Progress() {}

  static void say(String format, Object... args) {
    System.out.println(
        "[bench " + LocalTime.now().format(TIME) + "] " + String.format(Locale.ROOT, format, args));
    System.out.flush();
  }
}
