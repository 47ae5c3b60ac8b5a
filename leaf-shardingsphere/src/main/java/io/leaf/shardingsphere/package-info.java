/**
 * Sharded tables' keys from Leaf: {@link io.leaf.shardingsphere.LeafKeyGenerateAlgorithm}, the
 * ShardingSphere key generator of type {@code LEAF}, found through {@code META-INF/services}.
 */
package io.leaf.shardingsphere;
