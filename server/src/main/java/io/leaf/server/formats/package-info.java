/**
 * Formatted IDs (business numbers): patterns, periods, check characters and the FF1 cipher, the
 * issuer that serves them and the {@code leaf_format} table that keeps each tag's formats.
 *
 * <p>Two layers. The rules (FormatSpec, IdPattern, DatedPattern, Period, FormattedIds,
 * FormatChanges, CheckCharacters, Ff1Cipher and their exceptions) are pure functions of their
 * inputs: no gRPC, no database, no clock; time and the key are passed in. The service side reads a
 * clock and the database: FormattedIssuer and PeriodRows (a period's row of segments), TagFormats
 * and FormatAdmin (the formats as stored), and the store (FormatStore, JooqFormatStore,
 * MemoryFormatStore for tests).
 *
 * <p>Setting a format on a tag: {@link io.leaf.server.formats.FormatSpec#of} (refuses with {@link
 * io.leaf.server.formats.InvalidFormatException}), {@link
 * io.leaf.server.formats.FormattedIds#fingerprintToStore} for the key fingerprint to store beside
 * it, and {@link io.leaf.server.formats.FormatChanges#assess} against each earlier format of the
 * tag (whether or not it issued numbers yet: another server may still serve one).
 *
 * <p>Issuing: {@code ids = FormattedIds.of(tag, spec, serverKey, storedFingerprint)} once per tag
 * (refuses with {@link io.leaf.server.formats.FormatKeyMismatchException}); per number {@code p =
 * ids.periodOf(now)}, a sequence from the row (tag, {@code p.key()}), then {@code
 * ids.render(sequence, now)} with the same {@code now} (refuses with {@link
 * io.leaf.server.formats.WidthExhaustedException}). {@code p.end()} is the next boundary and {@code
 * p.next()} the period whose row to prepare before it; {@link
 * io.leaf.server.formats.FormattedIds#maxStep} bounds the tag's dynamic step.
 *
 * <p>Parsing: {@code ids.parse(value, isAdmin)} (refuses with {@link
 * io.leaf.server.formats.ValueMismatchException}).
 *
 * <p>Statuses: InvalidFormatException and ValueMismatchException are INVALID_ARGUMENT,
 * WidthExhaustedException is OUT_OF_RANGE, FormatKeyMismatchException is FAILED_PRECONDITION.
 * Libraries: Apache Commons Validator computes the check characters, Bouncy Castle's {@code
 * FPEFF1Engine} the FF1 encryption.
 */
package io.leaf.server.formats;
