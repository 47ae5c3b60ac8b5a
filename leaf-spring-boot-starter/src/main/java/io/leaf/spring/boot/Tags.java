package io.leaf.spring.boot;

/** The server's rule for the business tags of every RPC but CreateTag, checked before a call. */
final class Tags {

  static final int MAX_LENGTH = 128;

  private Tags() {}

  /** Not empty, at most 128 characters, no control character. */
  static boolean valid(String tag) {
    return tag != null
        && !tag.isEmpty()
        && tag.length() <= MAX_LENGTH
        && tag.chars().noneMatch(Character::isISOControl);
  }
}
