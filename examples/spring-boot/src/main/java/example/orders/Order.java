package example.orders;

/** An order and the unique ID Leaf gave it. */
public record Order(long id, String item) {
}
