package example.jpa;

import io.leaf.hibernate.LeafId;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** An order; its ID is the next of Leaf's {@code order} tag, set by Hibernate at persist. */
@Entity
@Table(name = "orders")
public class PurchaseOrder {

  @Id
  @LeafId("order")
  private Long id;

  private String item;

  protected PurchaseOrder() {}

  public PurchaseOrder(String item) {
    this.item = item;
  }

  public Long getId() {
    return id;
  }

  public String getItem() {
    return item;
  }
}
