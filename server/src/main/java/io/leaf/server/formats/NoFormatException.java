package io.leaf.server.formats;

/**
 * A formatted number asked of a tag that has no format. FAILED_PRECONDITION: SetFormat (or
 * CreateTag with a format) must come first.
 */
public final class NoFormatException extends RuntimeException {

  public NoFormatException(String tag) {
    super("tag " + Text.quote(tag) + " has no format; set one with SetFormat (admin) first");
  }
}
