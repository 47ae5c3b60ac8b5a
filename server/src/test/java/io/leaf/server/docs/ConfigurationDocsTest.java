package io.leaf.server.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.leaf.server.config.ServerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code --help} and docs/configuration.md list the same flags, variables and defaults. */
class ConfigurationDocsTest {

  private static final Path CONFIGURATION = DocsLinksTest.ROOT.resolve("docs/configuration.md");

  /** {@code --port $LEAF_PORT TCP port … (default 50051)}. */
  private static final Pattern HELP_LINE =
      Pattern.compile("^\\s+--(\\S+)\\s+\\$(\\S+)\\s.*\\(default (.*)\\)$");

  /** {@code Essentials:}, a heading of {@code --help}. */
  private static final Pattern HELP_HEADING = Pattern.compile("^[A-Z][A-Za-z ]+:$");

  /** {@code | `--port` | `LEAF_PORT` | `50051` | meaning |}. */
  private static final Pattern DOC_ROW =
      Pattern.compile("^\\|\\s*`--([a-z0-9-]+)`\\s*\\|\\s*`(LEAF_[A-Z0-9_]+)`\\s*\\|([^|]*)\\|");

  @Test
  void help_andConfigurationPage_listSameFlagsAndDefaults() throws Exception {
    Map<String, String> help = new TreeMap<>();
    for (String line : ServerConfig.help().split("\n")) {
      Matcher m = HELP_LINE.matcher(line);
      if (m.matches()) {
        help.put(m.group(1), m.group(2) + " default " + m.group(3).trim());
      }
    }
    Map<String, String> docs = new TreeMap<>();
    for (String line : Files.readAllLines(CONFIGURATION)) {
      Matcher m = DOC_ROW.matcher(line);
      if (m.find()) {
        String previous =
            docs.put(m.group(1), m.group(2) + " default " + m.group(3).trim().replace("`", ""));
        assertEquals(null, previous, "--" + m.group(1) + " has two rows in " + CONFIGURATION);
      }
    }
    assertFalse(help.isEmpty(), "no flag read from --help:\n" + ServerConfig.help());
    assertEquals(help, docs, "--help (expected) against " + CONFIGURATION + " (actual)");
  }

  @Test
  void help_groupsFlagsUnderConfigurationPageSections_inItsOrder() throws Exception {
    List<String> help = new ArrayList<>();
    String group = "(none)";
    for (String line : ServerConfig.help().split("\n")) {
      Matcher m = HELP_LINE.matcher(line);
      if (m.matches()) {
        help.add(group + ": --" + m.group(1));
      } else if (HELP_HEADING.matcher(line).matches()) {
        group = line.substring(0, line.length() - 1);
      }
    }
    List<String> docs = new ArrayList<>();
    group = "(none)";
    for (String line : Files.readAllLines(CONFIGURATION)) {
      Matcher m = DOC_ROW.matcher(line);
      if (m.find()) {
        docs.add(group + ": --" + m.group(1));
      } else if (line.startsWith("## ")) {
        group = line.substring(3).trim();
      }
    }
    assertEquals(
        String.join("\n", docs),
        String.join("\n", help),
        "--help lists each flag under its section of " + CONFIGURATION + ", in the same order");
  }
}
