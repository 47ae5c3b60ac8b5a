package example.orders;

import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * Places a few orders at start and prints their IDs: {@code java -jar
 * target/leaf-spring-boot-example-1.0.0.jar --leaf.client.target=localhost:50051} (the tag
 * {@code orders} must exist on the server).
 */
@SpringBootApplication
public class OrderApplication {

  public static void main(String[] args) {
    SpringApplication.run(OrderApplication.class, args);
  }

  @Bean
  ApplicationRunner placeOrdersAtStart(OrderService orders,
      @org.springframework.beans.factory.annotation.Value("${example.orders-at-start:3}") int n) {
    return args -> {
      for (int i = 0; i < n; i++) {
        Order order = orders.place("item-" + i);
        System.out.println("placed order " + order.id() + " for " + order.item());
      }
    };
  }
}
