package example.jpa;

import org.springframework.data.jpa.repository.JpaRepository;

/** The orders table. */
public interface OrderRepository extends JpaRepository<PurchaseOrder, Long> {}
