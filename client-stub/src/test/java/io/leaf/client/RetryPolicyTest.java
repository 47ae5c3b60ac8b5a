package io.leaf.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grpc.MethodDescriptor;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.SnowflakeServiceGrpc;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Every method of the proto is retried on UNAVAILABLE or left out on purpose. */
class RetryPolicyTest {

  private static Set<String> methods(io.grpc.ServiceDescriptor service) {
    Set<String> names = new TreeSet<>();
    for (MethodDescriptor<?, ?> m : service.getMethods()) {
      names.add(m.getBareMethodName());
    }
    return names;
  }

  @Test
  void leafService_everyMethodButCreateTagRetried() {
    Set<String> expected = methods(LeafServiceGrpc.getServiceDescriptor());
    expected.remove("CreateTag");
    assertEquals(
        expected,
        new TreeSet<>(RetryPolicy.RETRIED_METHODS),
        "a new RPC must be added to the retried methods, or left out here with the reason");
  }

  @Test
  void snowflakeService_everyMethodButWorkerLeasesRetried() {
    Set<String> expected = methods(SnowflakeServiceGrpc.getServiceDescriptor());
    // LocalSnowflakeIds leases, renews and releases on its own schedule; a LeaseWorker repeated
    // by the channel would hold a second worker ID until its TTL ran out.
    expected.removeAll(Set.of("LeaseWorker", "RenewWorker", "ReleaseWorker"));
    assertEquals(
        expected,
        new TreeSet<>(RetryPolicy.RETRIED_SNOWFLAKE_METHODS),
        "a new RPC must be added to the retried methods, or left out here with the reason");
  }

  @Test
  void serviceConfig_namesEveryRetriedMethodOnce() {
    @SuppressWarnings("unchecked")
    List<Object> names =
        (List<Object>)
            ((List<java.util.Map<String, ?>>) RetryPolicy.serviceConfig(4).get("methodConfig"))
                .get(0)
                .get("name");
    assertEquals(
        RetryPolicy.RETRIED_METHODS.size() + RetryPolicy.RETRIED_SNOWFLAKE_METHODS.size(),
        Set.copyOf(names).size());
  }
}
