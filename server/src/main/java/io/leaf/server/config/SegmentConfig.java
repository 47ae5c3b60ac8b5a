package io.leaf.server.config;

import io.leaf.server.engine.EngineConfig;

/**
 * How segments are loaded, held and recorded: the engine's flags, when idle tags drop their
 * segments, and whether the ranges taken are kept in the ledger.
 *
 * @param engine the engine's flags over {@link EngineConfig#DEFAULTS}
 * @param sweep when idle tags are evicted
 * @param ledger whether ranges taken are recorded, and for how long
 */
public record SegmentConfig(EngineConfig engine, SweepConfig sweep, LedgerConfig ledger) {}
