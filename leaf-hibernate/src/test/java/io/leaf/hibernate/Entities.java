package io.leaf.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** The entities of the tests, one per generator. */
final class Entities {

  private Entities() {}

  /** An order numbered by the tag {@code order}. */
  @Entity(name = "PurchaseOrder")
  @Table(name = "orders")
  public static class Order {
    @Id
    @LeafId("order")
    long id;

    String item;

    Order() {}

    Order(String item) {
      this.item = item;
    }
  }

  /** An invoice numbered by the formatted tag {@code invoice}. */
  @Entity
  @Table(name = "invoices")
  public static class Invoice {
    @Id
    @LeafFormattedId("invoice")
    String number;

    long amount;

    Invoice() {}

    Invoice(long amount) {
      this.amount = amount;
    }
  }

  /** An event with a snowflake ID. */
  @Entity
  @Table(name = "events")
  public static class Event {
    @Id @LeafSnowflakeId Long id;
    String name;

    Event() {}

    Event(String name) {
      this.name = name;
    }
  }
}
