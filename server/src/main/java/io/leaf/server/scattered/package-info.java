/**
 * SCATTERED tags' values: {@link io.leaf.server.scattered.ScatteredIds} maps each segment value to
 * its 63-bit reversal and back. This package only owns the mapping, and nothing in the server calls
 * it yet: the ordering feature stores a tag's SCATTERED ordering but refuses it (UNIMPLEMENTED)
 * until it is served.
 */
package io.leaf.server.scattered;
