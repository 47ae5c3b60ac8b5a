/**
 * SCATTERED tags' values: {@link io.leaf.server.scattered.ScatteredIds} maps each segment value to
 * its 63-bit reversal and back. The tag's ordering is stored and routed by the ordering feature;
 * this package only owns the mapping (its use: {@code ordering.StrictTags}, {@code
 * ordering.ScatteringObserver}, {@code ordering.ScatteredAdmin}).
 */
package io.leaf.server.scattered;
