/**
 * MyBatis-Plus entities with Leaf IDs: {@link io.leaf.mybatis.LeafIdentifierGenerator} set as the
 * global {@code IdentifierGenerator}, so {@code @TableId(type = IdType.ASSIGN_ID)} takes the next
 * ID of the entity's tag (its table name, or a mapping) from that tag's {@link
 * io.leaf.client.CachedIdGenerator}.
 */
package io.leaf.mybatis;
