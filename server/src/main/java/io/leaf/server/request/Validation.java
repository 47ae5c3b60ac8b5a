package io.leaf.server.request;

import java.util.regex.Pattern;

/** The request rules of the API contract; each failure message names the field and the value. */
public final class Validation {

  public static final int MAX_TAG_LENGTH = 128;
  public static final int MAX_DESCRIPTION_LENGTH = 256;
  public static final int MAX_STEP = 1_000_000_000;
  public static final int DEFAULT_STEP = 200;
  public static final long DEFAULT_MAX_ID = 1;
  public static final int DEFAULT_CHUNK = 10_000;
  public static final int MAX_CHUNK = 100_000;
  public static final int DEFAULT_PAGE = 100;
  public static final int MAX_PAGE = 1_000;

  private static final Pattern TAG = Pattern.compile("[A-Za-z0-9_.:-]+");

  private Validation() {}

  /**
   * CreateTag's rule: 1–128 characters of {@code [A-Za-z0-9_.:-]}, so that every tag Leaf creates
   * is safe in a URL, a log line and a metric label as it is.
   */
  public static String newBizTag(String tag) {
    bizTag(tag);
    if (!TAG.matcher(tag).matches()) {
      throw new InvalidArgumentException(
          "biz_tag must match [A-Za-z0-9_.:-]+, got \"" + printable(tag) + "\"");
    }
    return tag;
  }

  /**
   * Every other RPC's rule: 1–128 characters (code points, as a utf8mb4 {@code VARCHAR(128)} counts
   * them), none a control character. Wider than {@link #newBizTag}, since a table shared with
   * Meituan Leaf or written by hand may hold names such as {@code 订单} or {@code a b}.
   */
  public static String bizTag(String tag) {
    if (tag.isEmpty()) {
      throw new InvalidArgumentException("biz_tag must not be empty");
    }
    int length = tag.codePointCount(0, tag.length());
    if (length > MAX_TAG_LENGTH) {
      throw new InvalidArgumentException(
          "biz_tag must be at most " + MAX_TAG_LENGTH + " characters, got " + length);
    }
    if (tag.codePoints().anyMatch(Character::isISOControl)) {
      throw new InvalidArgumentException(
          "biz_tag must not hold control characters, got \"" + printable(tag) + "\"");
    }
    return tag;
  }

  /**
   * Whether {@code s} can be a tag name ListTags has returned ({@link #bizTag}'s rule); a name the
   * table's column cannot hold is found by the database ({@code InvalidPageKeyException}).
   */
  public static boolean isListedTagName(String s) {
    try {
      bizTag(s);
      return true;
    } catch (InvalidArgumentException e) {
      return false;
    }
  }

  /** CreateTag's step: 0 means the default. */
  public static int createStep(int step) {
    if (step == 0) {
      return DEFAULT_STEP;
    }
    if (step < 0 || step > MAX_STEP) {
      throw new InvalidArgumentException(
          "step must be between 1 and "
              + MAX_STEP
              + " (0 means the default, "
              + DEFAULT_STEP
              + "), got "
              + step);
    }
    return step;
  }

  public static int updateStep(int step) {
    if (step <= 0 || step > MAX_STEP) {
      throw new InvalidArgumentException(
          "step must be between 1 and " + MAX_STEP + ", got " + step);
    }
    return step;
  }

  /** CreateTag's max_id: 0 means the default. */
  public static long maxId(long maxId) {
    if (maxId == 0) {
      return DEFAULT_MAX_ID;
    }
    if (maxId < 0) {
      throw new InvalidArgumentException(
          "max_id must be at least 1 (0 means the default, " + DEFAULT_MAX_ID + "), got " + maxId);
    }
    return maxId;
  }

  /** At most 256 characters counted as utf8mb4 {@code VARCHAR(256)} counts them: code points. */
  public static String description(String description) {
    int length = description.codePointCount(0, description.length());
    if (length > MAX_DESCRIPTION_LENGTH) {
      throw new InvalidArgumentException(
          "description must be at most " + MAX_DESCRIPTION_LENGTH + " characters, got " + length);
    }
    return description;
  }

  public static int count(int count, int maxBatch) {
    if (count <= 0 || count > maxBatch) {
      throw new InvalidArgumentException(
          "count must be between 1 and " + maxBatch + " (--max-batch), got " + count);
    }
    return count;
  }

  public static int chunkSize(int chunkSize) {
    if (chunkSize == 0) {
      return DEFAULT_CHUNK;
    }
    if (chunkSize < 0 || chunkSize > MAX_CHUNK) {
      throw new InvalidArgumentException(
          "chunk_size must be between 1 and "
              + MAX_CHUNK
              + " (0 means the default, "
              + DEFAULT_CHUNK
              + "), got "
              + chunkSize);
    }
    return chunkSize;
  }

  public static int pageSize(int pageSize) {
    if (pageSize == 0) {
      return DEFAULT_PAGE;
    }
    if (pageSize < 0 || pageSize > MAX_PAGE) {
      throw new InvalidArgumentException(
          "page_size must be between 1 and "
              + MAX_PAGE
              + " (0 means the default, "
              + DEFAULT_PAGE
              + "), got "
              + pageSize);
    }
    return pageSize;
  }

  private static String printable(String s) {
    String shown = s.length() > 40 ? s.substring(0, 40) + "…" : s;
    StringBuilder out = new StringBuilder();
    shown
        .codePoints()
        .forEach(
            cp -> {
              if (Character.isISOControl(cp)) {
                out.append(String.format("\\u%04x", cp));
              } else {
                out.appendCodePoint(cp);
              }
            });
    return out.toString();
  }
}
