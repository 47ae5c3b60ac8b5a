package io.leaf.server.request;

/**
 * The API's rule for a tag a call names, for transports other than gRPC (the HTTP endpoints), so
 * that every transport accepts exactly the tags the gRPC service does.
 */
public final class TagNames {

  private TagNames() {}

  /** Why {@code tag} cannot name a tag in an ID call, in the API's words; null when it can. */
  public static String problem(String tag) {
    try {
      Validation.bizTag(tag);
      return null;
    } catch (InvalidArgumentException e) {
      return e.getMessage();
    }
  }
}
