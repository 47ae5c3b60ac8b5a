package io.leaf.spring.boot;

import io.leaf.client.FormattedIdParts;
import io.leaf.client.LeafClient;
import java.util.List;
import java.util.Objects;

/**
 * Formatted numbers of tags that carry a format (e.g. {@code ORD-20261126-0004577}): each call is
 * one RPC through the application's {@code LeafClient}, with its deadline, retries, token and typed
 * errors; nothing is cached, since a cached number could belong to a period already over.
 *
 * <p>Implementations are thread-safe.
 */
public interface LeafFormattedIds {

  /**
   * The tag's next formatted number.
   *
   * @throws io.leaf.client.FailedPreconditionException the tag has no format, or the server's key
   *     differs from the format's
   * @throws io.leaf.client.OutOfRangeException the period's numbers pass the sequence's width
   */
  String next(String bizTag);

  /** {@code count} formatted numbers of the tag from one stream, in the order the server sent. */
  List<String> next(String bizTag, int count);

  /**
   * The period, sequence and check of one of the tag's numbers (InvalidArgumentException when it
   * does not match the tag's format).
   */
  FormattedIdParts parse(String bizTag, String value);

  /** Formatted numbers through {@code client}, which the caller keeps and closes. */
  static LeafFormattedIds of(LeafClient client) {
    Objects.requireNonNull(client, "client");
    return new LeafFormattedIds() {
      @Override
      public String next(String bizTag) {
        return client.nextFormattedId(bizTag);
      }

      @Override
      public List<String> next(String bizTag, int count) {
        return client.nextFormattedIds(bizTag, count);
      }

      @Override
      public FormattedIdParts parse(String bizTag, String value) {
        return client.parseFormattedId(bizTag, value);
      }
    };
  }
}
