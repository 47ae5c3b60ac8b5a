package io.leaf.server.formats;

/**
 * What a value shows, read by {@link IdPattern#match}: each date field (-1 where the pattern has
 * none), the sequence as shown (still encrypted when the field is opaque), and whether its check is
 * right ({@code true} for a pattern without one).
 */
public record ShownFields(
    int year, int yearOfCentury, int month, int day, long shownSequence, boolean checkValid) {}
