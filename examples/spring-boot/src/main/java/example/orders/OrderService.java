package example.orders;

import io.leaf.client.CachedIdGenerator;
import io.leaf.spring.boot.LeafIdGenerators;
import org.springframework.stereotype.Service;

/** Gives every new order the next ID of the business tag {@code orders}. Thread-safe. */
@Service
public class OrderService {

  private final CachedIdGenerator orderIds;

  public OrderService(LeafIdGenerators generators) {
    // Looked up once: next() is then an increment of the IDs cached in this process.
    this.orderIds = generators.get("orders");
  }

  public Order place(String item) {
    return new Order(orderIds.next(), item);
  }
}
