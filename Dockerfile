# Runtime image of the Leaf server. Build the jar first: `make build` (or use `make image`).
FROM eclipse-temurin:17-jre
WORKDIR /opt/leaf
COPY server/target/lib/ lib/
COPY server/target/leaf-server.jar leaf-server.jar
# The default embedded H2 database lives in ./data; production sets LEAF_DB_URL to MySQL.
RUN mkdir data && chown 65532:65532 data
EXPOSE 50051
USER 65532:65532
ENTRYPOINT ["java", "-jar", "/opt/leaf/leaf-server.jar"]
