package io.leaf.server.snowflake;

import io.leaf.client.LeafClient;
import io.leaf.client.LocalSnowflakeIds;
import io.leaf.client.NoWorkerLeaseException;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * A client process for {@link LocalSnowflakeProcessTest}: makes IDs with {@link LocalSnowflakeIds}
 * against the server at {@code args[0]}, 20 a millisecond, writing each to {@code args[1]} (8
 * bytes, big-endian) until the file {@code args[2]} exists. Prints {@code issuing W} each time it
 * makes an ID under worker ID {@code W} after none or a refusal, and its counts at the end.
 */
public final class LocalSnowflakeClientMain {

  private LocalSnowflakeClientMain() {}

  public static void main(String[] args) throws Exception {
    Path stop = Path.of(args[2]);
    long made = 0;
    long refused = 0;
    int worker = -1;
    boolean wasRefused = true;
    try (LeafClient client =
            LeafClient.forTarget(args[0]).usePlaintext().deadline(Duration.ofSeconds(5)).build();
        LocalSnowflakeIds ids = LocalSnowflakeIds.builder(client).build();
        DataOutputStream out =
            new DataOutputStream(
                new BufferedOutputStream(new FileOutputStream(args[1]), 1 << 16))) {
      System.out.println("started");
      while (!Files.exists(stop)) {
        for (int i = 0; i < 20; i++) {
          try {
            long id = ids.next();
            out.writeLong(id);
            made++;
            int w = (int) ((id >>> 12) & 1023);
            if (w != worker || wasRefused) {
              worker = w;
              wasRefused = false;
              out.flush();
              System.out.println("issuing " + w);
            }
          } catch (NoWorkerLeaseException e) {
            refused++;
            wasRefused = true;
            break;
          }
        }
        LockSupport.parkNanos(1_000_000);
      }
      out.flush();
    }
    System.out.println("made " + made + " refused " + refused);
  }
}
