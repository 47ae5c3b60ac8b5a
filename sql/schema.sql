-- Leaf schema: applied at server start (idempotent) on MySQL/MariaDB and H2,
-- and the input of jOOQ code generation. Column semantics follow Meituan Leaf:
-- a server takes [max_id - step, max_id) after bumping max_id by step.
CREATE TABLE IF NOT EXISTS leaf_alloc (
  id          BIGINT       NOT NULL AUTO_INCREMENT,
  biz_tag     VARCHAR(128) NOT NULL,
  max_id      BIGINT       NOT NULL DEFAULT 1,
  step        INT          NOT NULL,
  description VARCHAR(256) DEFAULT NULL,
  update_time BIGINT       NOT NULL,
  PRIMARY KEY (id),
  CONSTRAINT uk_leaf_alloc_biz_tag UNIQUE (biz_tag)
);
