package io.leaf.server.formats;

/**
 * How a period row's IDs become the sequences formatted numbers show; implementations are immutable
 * and increasing (a later ID never shows an earlier sequence).
 *
 * <p>{@link #IDENTITY} without regions, region r's residues {@code r + 1 (mod n')} with them
 * ({@link io.leaf.server.region.Region}), so regions issuing from separate databases never show one
 * number twice within a period and every region's numbers stay small.
 */
public interface SequenceRule {

  /** The row's IDs as they are. */
  SequenceRule IDENTITY =
      new SequenceRule() {
        @Override
        public long sequence(long id) {
          return id;
        }

        @Override
        public long sequencesLeft(long cursor, long maxSequence) {
          return Math.max(0, maxSequence + 1 - cursor);
        }
      };

  /** The sequence shown for the row's ID {@code id}. */
  long sequence(long id);

  /** How many IDs from {@code cursor} on show a sequence of at most {@code maxSequence}. */
  long sequencesLeft(long cursor, long maxSequence);
}
