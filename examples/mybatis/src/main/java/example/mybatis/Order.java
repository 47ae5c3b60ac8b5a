package example.mybatis;

import com.baomidou.mybatisplus.annotation.IdType;
import com.baomidou.mybatisplus.annotation.TableId;
import com.baomidou.mybatisplus.annotation.TableName;

/** An order of table {@code orders}: its ID is the next of Leaf's {@code orders} tag. */
@TableName("orders")
public class Order {

  @TableId(type = IdType.ASSIGN_ID)
  private Long id;

  private String item;

  public Order() {}

  public Order(String item) {
    this.item = item;
  }

  public Long getId() {
    return id;
  }

  public void setId(Long id) {
    this.id = id;
  }

  public String getItem() {
    return item;
  }

  public void setItem(String item) {
    this.item = item;
  }
}
