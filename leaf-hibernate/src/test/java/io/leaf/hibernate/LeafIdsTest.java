package io.leaf.hibernate;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import java.util.UUID;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.Test;

class LeafIdsTest {

  /** An entity whose @LeafId is on a String. */
  @Entity
  public static class Misplaced {
    @Id
    @LeafId("order")
    String id;
  }

  @Test
  void nextId_nothingRegistered_saysHowToRegister() {
    LeafIds.clear();
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> LeafIds.nextId("order"));
    assertTrue(e.getMessage().contains("LeafIds.register(client)"), e.getMessage());
  }

  @Test
  void buildSessionFactory_leafIdOnString_refusedNamingTheField() {
    Configuration cfg =
        new Configuration()
            .addAnnotatedClass(Misplaced.class)
            .setProperty(
                "hibernate.connection.url", "jdbc:h2:mem:leaf-misplaced-" + UUID.randomUUID())
            .setProperty("hibernate.hbm2ddl.auto", "create");
    Throwable e = assertThrows(RuntimeException.class, cfg::buildSessionFactory);
    StringBuilder messages = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      messages.append(t.getMessage()).append('\n');
    }
    assertTrue(
        messages.toString().contains("Misplaced.id needs a long or Long identifier"),
        messages.toString());
  }
}
