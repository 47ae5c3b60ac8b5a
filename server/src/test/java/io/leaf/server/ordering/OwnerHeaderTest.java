package io.leaf.server.ordering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import io.leaf.server.testing.InProcessFleet;
import io.leaf.server.testing.Poll;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.IdBatch;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextSequenceRequest;
import io.leaf.v1.Ordering;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code leaf-owner} response header: a STRICT tag's calls name its owner, served there or
 * forwarded; a PER_SERVER tag's name none.
 */
class OwnerHeaderTest {

  private final InProcessFleet fleet = new InProcessFleet("owner-header", 1000);

  @AfterEach
  void tearDown() {
    fleet.close();
  }

  @Test
  void strictTag_ownerNamedThroughEveryServer_perServerTagNamesNone() throws Exception {
    LeafServiceGrpc.LeafServiceBlockingStub owner = fleet.start(0);
    LeafServiceGrpc.LeafServiceBlockingStub other = fleet.start(1);
    owner.createTag(
        CreateTagRequest.newBuilder().setBizTag("s").setOrdering(Ordering.STRICT).build());
    owner.createTag(CreateTagRequest.newBuilder().setBizTag("p").build());
    // The first call makes server 0 the owner, once it has waited out a lease.
    Poll.retry(
        () -> owner.withDeadlineAfter(2, TimeUnit.SECONDS).nextId(next("s")),
        Duration.ofSeconds(10));
    String expected = fleet.prefix + "0:1";

    assertEquals(expected, ownerHeader(owner, s -> s.nextId(next("s"))), "at the owner");
    assertEquals(expected, ownerHeader(other, s -> s.nextId(next("s"))), "forwarded NextId");
    assertEquals(
        expected,
        ownerHeader(
            other,
            s -> {
              Iterator<IdBatch> it =
                  s.nextIdBatch(NextIdBatchRequest.newBuilder().setBizTag("s").setCount(3).build());
              it.forEachRemaining(b -> {});
              return null;
            }),
        "forwarded NextIdBatch");
    assertNull(
        ownerHeader(
            other,
            s ->
                s.nextSequence(
                    NextSequenceRequest.newBuilder().setBizTag("s").setKey("k").build())),
        "NextSequence names none: a tag's keys have several owners");
    assertNull(ownerHeader(other, s -> s.nextId(next("p"))), "a PER_SERVER tag has no owner");
  }

  private static NextIdRequest next(String tag) {
    return NextIdRequest.newBuilder().setBizTag(tag).build();
  }

  private interface Call {
    Object on(LeafServiceGrpc.LeafServiceBlockingStub stub);
  }

  private static String ownerHeader(LeafServiceGrpc.LeafServiceBlockingStub stub, Call call) {
    AtomicReference<Metadata> headers = new AtomicReference<>();
    AtomicReference<Metadata> trailers = new AtomicReference<>();
    call.on(
        stub.withDeadlineAfter(5, TimeUnit.SECONDS)
            .withInterceptors(MetadataUtils.newCaptureMetadataInterceptor(headers, trailers)));
    return headers.get().get(OwnerHeader.KEY);
  }
}
