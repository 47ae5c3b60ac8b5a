/**
 * Snowflake IDs: the generator ({@link io.leaf.server.snowflake.SnowflakeGenerator}), its layout,
 * and the worker leases that keep two holders from issuing with one worker ID (the server's own
 * through {@link io.leaf.server.snowflake.WorkerLeaseKeeper}, clients' through {@link
 * io.leaf.server.snowflake.ClientLeases}, both under {@link io.leaf.server.snowflake.WorkerClaims}'
 * rules) in the lease table.
 *
 * <p>The fence: a renewal sent at monotonic time {@code t} and acknowledged lets the generator
 * issue until {@code t + ttl - margin}; the database judges the lease from its own clock when it
 * ran the statement, which is later than {@code t}, so the server always stops before the database
 * could give the worker ID to another server. The margin (a fifth of the TTL) covers the two
 * clocks' rates differing. Before the first ID of a claimed worker the keeper stores a ceiling (see
 * {@link io.leaf.server.snowflake.SnowflakeGenerator}), so a claim alone never lets the server
 * issue.
 *
 * <p>The rewind rule: the lease table may lose or rewind a row (a restored backup, a promoted
 * lagging replica, an operator's DELETE) while another server still holds the worker ID, so no row
 * is trusted to prove the worker free. A claim is held back ("quarantined") for the TTL plus {@link
 * io.leaf.server.snowflake.SnowflakeGenerator#MAX_BORROW_MS} by the monotonic clock: any earlier
 * holder's own fence has ended by then (its last renewal came before the claim). Its IDs start
 * above the stored timestamp and above the database's time at the claim plus the same span, which
 * is above any timestamp an earlier holder could have reached while its clock was within a fifth of
 * the TTL of the database's. A holder renews only a row that still holds at least the ceiling it
 * stored; a row deleted, zeroed or rewound under it ends its lease at its next renewal. A renewal
 * that succeeds only after the holder's own fence lapsed counts as a new claim (the row may have
 * been put back to this holder's own old copy after another server claimed it).
 *
 * <p>An exclusive database (an embedded H2 that no other process can open while this one has it)
 * has no other holder to wait out: the only earlier holders were processes that had the database
 * before this one, and they are gone. There a claim starts issuing at once, above the stored
 * ceiling, which every holder stores before issuing.
 *
 * <p>A stored timestamp beyond the layout's end (a clock glitch) cannot be the time of any ID
 * issued, so it is discarded at claim time with a warning and {@link
 * io.leaf.server.snowflake.WorkerLeaseKeeper#discardedFloors()} counts it.
 */
package io.leaf.server.snowflake;
