-- Leaf schema: applied at server start (idempotent) on MySQL/MariaDB and H2 (PostgreSQL: schema-postgresql.sql),
-- and the input of jOOQ code generation. Column semantics follow Meituan Leaf:
-- a server takes [max_id - step, max_id) after bumping max_id by step.
-- biz_tag compares byte for byte on MySQL too (its default collation would make `Order` and
-- `order` one row), and description holds any Unicode text whatever the server's default charset.
CREATE TABLE IF NOT EXISTS leaf_alloc (
  id          BIGINT       NOT NULL AUTO_INCREMENT,
  biz_tag     VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  max_id      BIGINT       NOT NULL DEFAULT 1,
  step        INT          NOT NULL,
  description VARCHAR(256) CHARACTER SET utf8mb4,
  update_time BIGINT       NOT NULL,
  PRIMARY KEY (id),
  CONSTRAINT uk_leaf_alloc_biz_tag UNIQUE (biz_tag)
);

-- Snowflake worker leases: one row per worker ID ever claimed. A server owns a worker ID while
-- lease_expires_ms (epoch millis by the DATABASE's clock) lies ahead of the database's clock and
-- owner is its token; it renews the row well before then and sets lease_expires_ms to 0 when it
-- stops. last_timestamp_ms: no ID of this worker was or will be issued by the owner above this
-- timestamp (epoch millis) before its lease ends; the next owner starts above it.
-- A server needs SELECT, INSERT and UPDATE on this table only.
CREATE TABLE IF NOT EXISTS leaf_worker (
  worker_id         INT          NOT NULL,
  owner             VARCHAR(128) NOT NULL,
  lease_expires_ms  BIGINT       NOT NULL,
  last_timestamp_ms BIGINT       NOT NULL,
  update_time       BIGINT       NOT NULL,
  PRIMARY KEY (worker_id)
);

-- Formats of tags (formatted IDs): every format a tag has had, version 1 first; the highest
-- version is the current one. Earlier versions stay so a change can be checked against each
-- (a change is refused when the new format could produce a value an earlier one issued).
-- reset_period: NEVER, DAILY, MONTHLY or YEARLY; key_fingerprint: the opaque key's, or ''.
-- A period's numbers come from its own leaf_alloc row, named biz_tag#<period key>.
CREATE TABLE IF NOT EXISTS leaf_format (
  biz_tag         VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  version         INT          NOT NULL,
  pattern         VARCHAR(256) CHARACTER SET utf8mb4 NOT NULL,
  reset_period    VARCHAR(16)  NOT NULL,
  time_zone       VARCHAR(64)  NOT NULL,
  key_fingerprint VARCHAR(64)  NOT NULL,
  update_time     BIGINT       NOT NULL,
  PRIMARY KEY (biz_tag, version)
);

-- Several regions (docs/regions.md): the region whose share of the ID space this database
-- issues, one row (id 1) written by the first server started with --region and checked by every
-- server at start. rule_name names how shares are computed ('high-bits'); region is r and
-- regions n of --region r/n. leaf_alloc keeps local values: a server adds the share's base.
-- A server started with --region needs SELECT and INSERT on this table (CREATE once, or a DBA).
CREATE TABLE IF NOT EXISTS leaf_region (
  id          INT          NOT NULL,
  rule_name   VARCHAR(32)  NOT NULL,
  region      INT          NOT NULL,
  regions     INT          NOT NULL,
  update_time BIGINT       NOT NULL,
  PRIMARY KEY (id)
);

-- The ledger (docs/operations.md#the-ledger): every range a server took from leaf_alloc, written in
-- the same transaction as the take, and every unissued rest handed back at a graceful stop.
-- start_id/end_id: [start_id, end_id) in the database's local values (leaf_alloc's); kind:
-- 'segment' (a segment load), 'reserve' (ReserveIds' own write) or 'returned' (handed back);
-- server: the taking server's identity (host:port/pid-instance); time_ms: its clock, epoch millis.
-- The primary key makes a take of a range recorded already fail (a gap, never a repeat); rows
-- older than --ledger-retention are deleted in small batches, by time_ms.
CREATE TABLE IF NOT EXISTS leaf_ledger (
  biz_tag  VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  start_id BIGINT       NOT NULL,
  end_id   BIGINT       NOT NULL,
  kind     VARCHAR(16)  NOT NULL,
  server   VARCHAR(255) NOT NULL,
  time_ms  BIGINT       NOT NULL,
  PRIMARY KEY (biz_tag, start_id, kind)
);
CREATE INDEX ix_leaf_ledger_time ON leaf_ledger (time_ms);

-- Ordered tags (docs/ordering.md): a tag's ordering (1 PER_SERVER, 2 STRICT, 3 SCATTERED) and,
-- for a STRICT tag, its owner's lease: the owner's --advertise-address, a fencing epoch raised by
-- every new owner, and the lease's end by the database's clock. No row: PER_SERVER. Every server
-- reads it before serving a tag, so every server's user needs SELECT, INSERT and UPDATE on it.
-- A SCATTERED tag's row must stay: without it servers would issue the tag's values unscattered.
CREATE TABLE IF NOT EXISTS leaf_tag_lease (
  biz_tag          VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  ordering         INT          NOT NULL,
  owner            VARCHAR(255) NOT NULL,
  epoch            BIGINT       NOT NULL,
  lease_expires_ms BIGINT       NOT NULL,
  update_time      BIGINT       NOT NULL,
  PRIMARY KEY (biz_tag)
);

-- The owner leases of sequence groups (docs/ordering.md, "Sequences per key"): a STRICT tag's
-- sections fall into 16 groups, each owned by one server at a time under its own lease, so the
-- keys spread over the servers. Rows as leaf_tag_lease's, biz_tag being "tag#group"; made by a
-- group's first owner. Every server's user needs SELECT, INSERT and UPDATE on it.
CREATE TABLE IF NOT EXISTS leaf_sequence_lease (
  biz_tag          VARCHAR(140) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  ordering         INT          NOT NULL,
  owner            VARCHAR(255) NOT NULL,
  epoch            BIGINT       NOT NULL,
  lease_expires_ms BIGINT       NOT NULL,
  update_time      BIGINT       NOT NULL,
  PRIMARY KEY (biz_tag)
);

-- Per-key sequences of STRICT tags (docs/ordering.md): keys hash into sections; each section's
-- ceiling is above every value ever issued for its keys, raised by its group's owner (its lease
-- checked in the same statement) before a value above it is issued.
CREATE TABLE IF NOT EXISTS leaf_sequence_section (
  biz_tag     VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  section     INT          NOT NULL,
  ceiling     BIGINT       NOT NULL,
  update_time BIGINT       NOT NULL,
  PRIMARY KEY (biz_tag, section)
);
