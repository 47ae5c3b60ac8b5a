package io.leaf.server.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README stays a five-minute read that indexes every {@code docs/} page, and no relative link
 * in the README or the pages points at a missing file or heading.
 */
class DocsLinksTest {

  static final Path ROOT = Path.of("..");
  static final Path README = ROOT.resolve("README.md");
  static final int README_MAX_LINES = 200;

  private static final Pattern FENCE = Pattern.compile("(?s)```.*?```");
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("(?m)^#+ (.*)$");

  @Test
  void readme_lineCount_atMost200() throws IOException {
    long lines = Files.readAllLines(README).size();
    assertTrue(
        lines <= README_MAX_LINES,
        "README.md has "
            + lines
            + " lines; keep it to "
            + README_MAX_LINES
            + " and move the rest to a docs/ page");
  }

  @Test
  void readme_everyDocsPage_linked() throws IOException {
    String readme = Files.readString(README);
    List<String> unlinked = new ArrayList<>();
    for (Path page : docsPages()) {
      if (!readme.contains("(docs/" + page.getFileName() + ")")) {
        unlinked.add(page.getFileName().toString());
      }
    }
    assertEquals(List.of(), unlinked, "docs/ pages the README's index does not link");
  }

  @Test
  void relativeLinks_readmeAndDocs_resolveToFilesAndHeadings() throws IOException {
    List<Path> files = new ArrayList<>(docsPages());
    files.add(README);
    assertTrue(files.size() > 10, "found the docs/ pages: " + files);
    List<String> broken = new ArrayList<>();
    for (Path file : files) {
      Matcher m = LINK.matcher(withoutCodeBlocks(file));
      while (m.find()) {
        String link = m.group(1);
        if (link.startsWith("http://") || link.startsWith("https://")) {
          continue;
        }
        int hash = link.indexOf('#');
        String path = hash < 0 ? link : link.substring(0, hash);
        Path target = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
        if (!Files.exists(target)) {
          broken.add(file.getFileName() + ": " + link + " (no such file)");
        } else if (hash >= 0
            && target.toString().endsWith(".md")
            && !anchors(target).contains(link.substring(hash + 1))) {
          broken.add(file.getFileName() + ": " + link + " (no such heading)");
        }
      }
    }
    assertEquals(List.of(), broken, "relative links that lead nowhere");
  }

  @Test
  void anchor_headingWithCodeAndPunctuation_githubSlug() {
    assertEquals(
        "leafv1snowflakeservice-time-ordered-ids-no-tag",
        slug("`leaf.v1.SnowflakeService`: time-ordered IDs, no tag"));
  }

  private static List<Path> docsPages() throws IOException {
    try (Stream<Path> pages = Files.list(ROOT.resolve("docs"))) {
      return pages.filter(p -> p.toString().endsWith(".md")).sorted().toList();
    }
  }

  private static String withoutCodeBlocks(Path file) throws IOException {
    return FENCE.matcher(Files.readString(file)).replaceAll("");
  }

  private static Set<String> anchors(Path file) throws IOException {
    Set<String> anchors = new HashSet<>();
    Matcher m = HEADING.matcher(withoutCodeBlocks(file));
    while (m.find()) {
      anchors.add(slug(m.group(1)));
    }
    return anchors;
  }

  /** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
  static String slug(String heading) {
    return heading
        .strip()
        .toLowerCase(Locale.ROOT)
        .replaceAll("[^\\p{L}\\p{N}_\\- ]", "")
        .replace(' ', '-');
  }
}
