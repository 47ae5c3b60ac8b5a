package io.leaf.server.security;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;
import io.leaf.v1.CreateTagRequest;
import io.leaf.v1.DecodeScatteredIdRequest;
import io.leaf.v1.GetTagRequest;
import io.leaf.v1.InitCacheRequest;
import io.leaf.v1.LeafServiceGrpc;
import io.leaf.v1.NextIdBatchRequest;
import io.leaf.v1.NextIdRequest;
import io.leaf.v1.NextSequenceRequest;
import io.leaf.v1.NextSnowflakeIdBatchRequest;
import io.leaf.v1.NextUuidBatchRequest;
import io.leaf.v1.ParseFormattedIdRequest;
import io.leaf.v1.ReserveIdsRequest;
import io.leaf.v1.SetFormatRequest;
import io.leaf.v1.SnowflakeServiceGrpc;
import io.leaf.v1.UpdateStepRequest;
import io.leaf.v1.WhoIssuedRequest;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * What each LeafService and SnowflakeService RPC needs of a token: its role, the tag it names
 * (scope) and the IDs it takes (rate).
 *
 * <p>ID calls need {@code issue} (formatted ones and NextSequence too), ReserveIds {@code reserve},
 * CreateTag, UpdateStep and SetFormat {@code admin}. WhoIssued, like GetTag, needs {@code issue}
 * with the tag in scope, and so does DecodeScatteredId. ListTags needs {@code issue} and lists only
 * the tags in scope; snowflake RPCs name no tag and need {@code issue} of any scope. An RPC missing
 * from this table needs {@code admin}, its {@code biz_tag} checked against the scope.
 */
final class CallRules {

  /**
   * One RPC's rule.
   *
   * @param tag the tag a request names; null: the RPC names none
   * @param ids the IDs a request takes; null: none
   * @param listsTags whether its answers list tags (filtered to the caller's scope)
   * @param revealsOpaque whether it reveals opaque sequences to admins (ParseFormattedId)
   */
  record Rule(
      Role role,
      Function<Object, String> tag,
      ToLongFunction<Object> ids,
      boolean listsTags,
      boolean revealsOpaque) {

    /** Whether the first request message decides (its tag or its count). */
    boolean readsRequest() {
      return tag != null || ids != null;
    }

    String tagOf(Object request) {
      return tag == null ? null : tag.apply(request);
    }

    long idsOf(Object request) {
      return ids == null ? 0 : Math.max(0, ids.applyAsLong(request));
    }
  }

  private static final Map<String, Rule> RULES = new HashMap<>();

  static {
    issue(LeafServiceGrpc.getNextIdMethod(), r -> ((NextIdRequest) r).getBizTag(), r -> 1);
    issue(
        LeafServiceGrpc.getNextIdBatchMethod(),
        r -> ((NextIdBatchRequest) r).getBizTag(),
        r -> ((NextIdBatchRequest) r).getCount());
    issue(LeafServiceGrpc.getNextFormattedIdMethod(), r -> ((NextIdRequest) r).getBizTag(), r -> 1);
    issue(
        LeafServiceGrpc.getNextFormattedIdBatchMethod(),
        r -> ((NextIdBatchRequest) r).getBizTag(),
        r -> ((NextIdBatchRequest) r).getCount());
    // A key's next value is one ID of its tag, as NextId is.
    issue(
        LeafServiceGrpc.getNextSequenceMethod(),
        r -> ((NextSequenceRequest) r).getBizTag(),
        r -> 1);
    issue(LeafServiceGrpc.getInitCacheMethod(), r -> ((InitCacheRequest) r).getBizTag(), null);
    issue(LeafServiceGrpc.getGetTagMethod(), r -> ((GetTagRequest) r).getBizTag(), null);
    // Provenance of a tag's IDs: whoever may take them may ask who did (support, audits).
    issue(LeafServiceGrpc.getWhoIssuedMethod(), r -> ((WhoIssuedRequest) r).getBizTag(), null);
    put(
        LeafServiceGrpc.getParseFormattedIdMethod(),
        new Rule(Role.ISSUE, r -> ((ParseFormattedIdRequest) r).getBizTag(), null, false, true));
    // The reversal is public arithmetic: whoever may take a tag's IDs may read them back.
    issue(
        LeafServiceGrpc.getDecodeScatteredIdMethod(),
        r -> ((DecodeScatteredIdRequest) r).getBizTag(),
        null);
    put(LeafServiceGrpc.getListTagsMethod(), new Rule(Role.ISSUE, null, null, true, false));
    put(
        LeafServiceGrpc.getReserveIdsMethod(),
        new Rule(
            Role.RESERVE,
            r -> ((ReserveIdsRequest) r).getBizTag(),
            r -> ((ReserveIdsRequest) r).getCount(),
            false,
            false));
    admin(LeafServiceGrpc.getCreateTagMethod(), r -> ((CreateTagRequest) r).getBizTag());
    admin(LeafServiceGrpc.getUpdateStepMethod(), r -> ((UpdateStepRequest) r).getBizTag());
    admin(LeafServiceGrpc.getSetFormatMethod(), r -> ((SetFormatRequest) r).getBizTag());
    issue(SnowflakeServiceGrpc.getNextSnowflakeIdMethod(), null, r -> 1);
    issue(
        SnowflakeServiceGrpc.getNextSnowflakeIdBatchMethod(),
        null,
        r -> ((NextSnowflakeIdBatchRequest) r).getCount());
    issue(SnowflakeServiceGrpc.getDecodeSnowflakeIdMethod(), null, null);
    issue(SnowflakeServiceGrpc.getGetWorkerMethod(), null, null);
    issue(SnowflakeServiceGrpc.getNextUuidMethod(), null, r -> 1);
    issue(
        SnowflakeServiceGrpc.getNextUuidBatchMethod(),
        null,
        r -> ((NextUuidBatchRequest) r).getCount());
    issue(SnowflakeServiceGrpc.getDecodeUuidMethod(), null, null);
    // A client-held worker makes snowflake IDs without the server: like NextSnowflakeId, issue.
    issue(SnowflakeServiceGrpc.getLeaseWorkerMethod(), null, null);
    issue(SnowflakeServiceGrpc.getRenewWorkerMethod(), null, null);
    issue(SnowflakeServiceGrpc.getReleaseWorkerMethod(), null, null);
  }

  /** Any RPC not in the table: admin, and the scope holds its {@code biz_tag} if it has one. */
  private static final Rule UNLISTED =
      new Rule(Role.ADMIN, CallRules::bizTagField, null, false, false);

  private CallRules() {}

  static Rule of(MethodDescriptor<?, ?> method) {
    return RULES.getOrDefault(method.getFullMethodName(), UNLISTED);
  }

  private static void issue(
      MethodDescriptor<?, ?> m, Function<Object, String> tag, ToLongFunction<Object> ids) {
    put(m, new Rule(Role.ISSUE, tag, ids, false, false));
  }

  private static void admin(MethodDescriptor<?, ?> m, Function<Object, String> tag) {
    put(m, new Rule(Role.ADMIN, tag, null, false, false));
  }

  private static void put(MethodDescriptor<?, ?> m, Rule rule) {
    RULES.put(m.getFullMethodName(), rule);
  }

  /** The {@code biz_tag} string field of a protobuf request; null when it has none. */
  private static String bizTagField(Object request) {
    if (!(request instanceof Message message)) {
      return null;
    }
    FieldDescriptor field = message.getDescriptorForType().findFieldByName("biz_tag");
    return field != null && field.getJavaType() == FieldDescriptor.JavaType.STRING
        ? (String) message.getField(field)
        : null;
  }
}
