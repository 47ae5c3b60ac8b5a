package io.leaf.client;

import io.grpc.CallCredentials;
import io.grpc.Metadata;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Call credentials that send {@code authorization: Bearer <token>}, the header a Leaf server
 * started with {@code --admin-token} or {@code --client-token} checks; thread-safe.
 *
 * <p>Send it over TLS only: the token is a password.
 */
public final class BearerToken extends CallCredentials {

  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final String header;

  public BearerToken(String token) {
    Objects.requireNonNull(token, "token");
    if (token.isEmpty() || !token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      // The message never repeats the token: it is a secret.
      throw new IllegalArgumentException("token must be printable ASCII without spaces");
    }
    this.header = "Bearer " + token;
  }

  @Override
  public void applyRequestMetadata(RequestInfo info, Executor executor, MetadataApplier applier) {
    Metadata headers = new Metadata();
    headers.put(AUTHORIZATION, header);
    applier.apply(headers);
  }

  /** Never shows the token. */
  @Override
  public String toString() {
    return "BearerToken[***]";
  }
}
