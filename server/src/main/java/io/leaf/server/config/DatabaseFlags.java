package io.leaf.server.config;

import io.leaf.server.engine.EngineConfig;
import java.time.Duration;

/**
 * The flags of the database: where it is, the threads and queues that call it, and the ledger of
 * the ranges taken from it; {@link Flags} lists them under their headings.
 */
final class DatabaseFlags {
  private static final EngineConfig ENGINE = EngineConfig.DEFAULTS;

  static final Flag<String> DB_URL =
      Flag.of(
          "db-url",
          Flags.DEFAULT_DB_URL,
          "JDBC URL: jdbc:mysql://host:3306/db or jdbc:h2:file:path",
          Parsers.text());
  static final Flag<String> DB_USER =
      Flag.of("db-user", "sa", "database user (H2 default: sa)", Parsers.text());
  static final Flag<String> DB_PASSWORD =
      Flag.of("db-password", "", "database password", Parsers.text());
  static final Flag<Integer> DB_POOL_SIZE =
      Flag.of(
          "db-pool-size",
          Integer.toString(ENGINE.loaders().threads()),
          "segment loader threads of tags this server"
              + " serves, each with its own pooled connection (the pool adds one per first-load and"
              + " db-call thread, one for health checks and one for the worker lease)",
          Parsers.integer(1, 1000));
  static final Flag<Integer> MAX_QUEUED_LOADS =
      Flag.of(
          "max-queued-loads",
          Integer.toString(ENGINE.loaders().queue()),
          "segment loads of served tags that may wait for a loader thread",
          Parsers.integer(1, 1_000_000));
  static final Flag<Integer> FIRST_LOAD_THREADS =
      Flag.of(
          "first-load-threads",
          Integer.toString(ENGINE.firstLoads().threads()),
          "threads loading the first segment of tags this server holds nothing of",
          Parsers.integer(1, 1000));
  static final Flag<Integer> MAX_QUEUED_FIRST_LOADS =
      Flag.of(
          "max-queued-first-loads",
          Integer.toString(ENGINE.firstLoads().queue()),
          "such first loads that may wait for a thread",
          Parsers.integer(1, 1_000_000));
  static final Flag<Integer> DB_CALL_THREADS =
      Flag.of(
          "db-call-threads",
          "4",
          "threads running CreateTag, UpdateStep, GetTag, ListTags, InitCache's read and"
              + " ReserveIds' dedicated write",
          Parsers.integer(1, 1000));
  static final Flag<Integer> MAX_QUEUED_DB_CALLS =
      Flag.of(
          "max-queued-db-calls",
          "1000",
          "such calls that may wait for a thread",
          Parsers.integer(1, 1_000_000));
  static final Flag<Boolean> LEDGER =
      Flag.of(
          "ledger",
          "on",
          "on: record every range taken from the database in leaf_ledger in the same transaction"
              + " (WhoIssued answers from it); off: one statement per segment, nothing recorded",
          Parsers.onOff());
  static final Flag<Duration> LEDGER_RETENTION =
      Flag.of(
          "ledger-retention",
          "30d",
          "ledger records older than this are deleted, in batches of 1000 off the request path",
          Parsers.duration());

  private DatabaseFlags() {}
}
