# Runtime image of the Leaf server. Build the jar first: `make build` (or use `make image`).
FROM eclipse-temurin:17-jre
WORKDIR /opt/leaf
COPY server/target/lib/ lib/
COPY server/target/leaf-server.jar leaf-server.jar
# The default embedded H2 database lives in ./data and is for trying Leaf out: a container recreated
# without a volume on /opt/leaf/data starts again at max_id 1 and repeats IDs it issued before.
# Production sets LEAF_DB_URL to MySQL/MariaDB or PostgreSQL (or mounts a volume on data/).
RUN mkdir data && chown 65532:65532 data
VOLUME /opt/leaf/data
# 50051: gRPC; 9464: the metrics port when LEAF_METRICS_PORT=9464 (k8s/leaf.yaml sets it).
EXPOSE 50051 9464
USER 65532:65532
ENTRYPOINT ["java", "-jar", "/opt/leaf/leaf-server.jar"]
