package io.leaf.server.store;

/** The store contract on the in-memory store the engine's tests and benchmarks use. */
class MemorySegmentStoreTest extends SegmentStoreContractTest {
  @Override
  SegmentStore newStore() {
    return new MemorySegmentStore();
  }
}
