# Leaf — make targets. Everything runs through Maven; only a JDK 17 and Maven are needed.
SHELL := /bin/bash
MVN ?= mvn -B -q
JAR := server/target/leaf-server.jar
# The class-data sharing archive scripts/cds-archive.sh writes beside the jar (make run uses it).
CDS := server/target/leaf.jsa
# The version lives in pom.xml only (the project's first <version>); the image tag drops -SNAPSHOT.
VERSION := $(shell sed -n 's:^  <version>\(.*\)</version>:\1:p' pom.xml | head -1 | sed 's/-SNAPSHOT$$//')
SOURCES := $(shell find pom.xml proto sql leaf-proto/pom.xml client-stub/pom.xml client-stub/src server/pom.xml server/src -type f 2>/dev/null)

.PHONY: build run lint test acceptance-strict test-fast test-examples test-jpa test-mybatis test-node bench-node test-python test-spring-boot test-browser bench image clean help

help:
	@echo "make run    build if needed, start the server on :50051 with the embedded H2 database (./data)"
	@echo "make lint   formatter check (google-java-format), Error Prone, Checkstyle, maven-enforcer"
	@echo "make test   run every test (MariaDB tests skip with a message when no MariaDB is reachable)"
	@echo "make test-fast  the JUnit tests not tagged slow: no child processes, clusters or stress runs (about 3 minutes once built)"
	@echo "make test-node  the Node package's tests (packed, in an empty project) and the Node example's, against the packaged server (skipped without node)"
	@echo "make bench-node  bench N2: the Node CachedIdGenerator.next() against a plain counter"
	@echo "make test-python  the Python example's test against the packaged server (skipped without python3-grpcio)"
	@echo "make test-examples  every example (jpa, mybatis, spring-boot, node, python) against the packaged server, after mvn install"
	@echo "make test-jpa  the JPA example (@LeafId entities, built against the installed leaf-bom) against the packaged server"
	@echo "make test-mybatis  the MyBatis-Plus example (built against the installed leaf-bom) against the packaged server"
	@echo "make test-spring-boot  the Spring Boot example (built against the installed leaf-bom) against the packaged server"
	@echo "make test-browser the monitor page in headless Chromium against the packaged server (skipped without chromium or node)"
	@echo "make build  compile and package server/target/leaf-server.jar"
	@echo "make acceptance-strict  STRICT tags' acceptance run: three packaged servers on the MariaDB at 127.0.0.1:3306, owners killed -9 and SIGSTOPped (about 2 minutes; not part of make test)"
	@echo "make bench  run the benchmarks (about ten minutes; table in target/bench/results.md)"
	@echo "make image  build the container image leaf-server:$(VERSION) (needs a Docker engine)"
	@echo "make clean  remove build output (keeps ./data)"

build: $(JAR)

$(JAR): $(SOURCES)
	$(MVN) install -DskipTests
	@touch $(JAR)
	@scripts/cds-archive.sh $(JAR) $(CDS)

# STRICT tags' acceptance run (docs/ordering.md#acceptance-run) against the packaged jar, packaged
# first when a source is newer (without installing anything); ARGS go to the program.
acceptance-strict:
	@if [ ! -f $(JAR) ] || [ -n "$$(find $(SOURCES) -newer $(JAR) -print -quit)" ]; then \
		$(MVN) -pl leaf-proto,client-stub,server -am package -DskipTests; \
	fi
	scripts/strict-acceptance.sh $(ARGS)

run: $(JAR)
	java @scripts/run.jvm $(if $(wildcard $(CDS)),-XX:SharedArchiveFile=$(CDS)) -jar $(JAR) $(ARGS)

# The lint gate, which CI runs before the tests: maven-enforcer (every build), google-java-format
# through Spotless (check only; `mvn spotless:apply` rewrites), a compile with Error Prone (profile
# lint: its ERROR checks fail), Checkstyle (100 columns, comments included; no wildcard or unused
# imports). Output goes to target/lint.log; only a failure prints it.
lint:
	@$(MVN) clean
	@mkdir -p target
	@if $(MVN) -Plint -fae process-test-classes > target/lint.log 2>&1; then \
		echo "PASSED lint: formatter, Error Prone, Checkstyle, enforcer"; \
	else \
		grep -E '\[(ERROR|WARN(ING)?)\]|^[^[].*\.java' target/lint.log | head -100; \
		echo "FAILED lint (whole log: target/lint.log)"; exit 1; \
	fi

# Every suite runs; the last lines are the counts of each, then the failed JUnit tests by name
# (scripts/test-summary.sh). The packaged server is built first (no tests); then `make
# test-examples` (every example, once) and after it the browser test (both install clients/node)
# run in the background beside the JUnit tests. Their output is printed when they end; the logs
# stay in target/test-logs/.
test:
	@rm -rf target/test-logs */target/surefire-reports examples/*/target/surefire-reports
	@mkdir -p target/test-logs
	@status=0; \
	if $(MVN) install -DskipTests; then \
		( $(MAKE) --no-print-directory test-examples > target/test-logs/examples.txt 2>&1; \
		  echo $$? > target/test-logs/examples.txt.rc; \
		  $(MAKE) --no-print-directory test-browser > target/test-logs/browser.log 2>&1; \
		  echo $$? > target/test-logs/browser.rc ) & \
		$(MVN) test || status=1; \
		wait; \
		echo "=== examples (target/test-logs/examples.txt)"; cat target/test-logs/examples.txt; \
		[ "$$(cat target/test-logs/examples.txt.rc)" = 0 ] || status=1; \
		echo "=== browser (target/test-logs/browser.log)"; cat target/test-logs/browser.log; \
		[ "$$(cat target/test-logs/browser.rc)" = 0 ] || status=1; \
	else \
		status=1; \
	fi; \
	scripts/test-summary.sh || status=1; \
	exit $$status

# The JUnit tests of every module except those tagged @Tag("slow") (separate processes, kill -9,
# libfaketime, Galera, Patroni, several servers, stress runs): what a change runs before `make
# test`. Quiet: each test class's output (server logs) goes to its file in surefire-reports and
# is shown only for a class that failed; Maven prints failures in full. Counts as for `make test`,
# from this run's reports only.
test-fast:
	@rm -rf target/test-logs */target/surefire-reports examples/*/target/surefire-reports
	@status=0; \
	$(MVN) test -DexcludedGroups=slow -Dmaven.test.redirectTestOutputToFile=true || status=1; \
	scripts/test-summary.sh || status=1; \
	exit $$status

# The Node package's tests (clients/node: packed with npm pack, installed into an empty project,
# run there) and the Node example's; both start server/target/leaf-server.jar (built by `make
# build` or `make test`).
test-node:
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then \
		(cd clients/node && npm ci --no-audit --no-fund && npm test) && \
		cd examples/node && npm ci --no-audit --no-fund && npm test; \
	else \
		echo "SKIPPED Node tests: node not found"; \
	fi

# Bench N2: the Node package's CachedIdGenerator.next() against a plain counter (ratio, bar 0.5).
bench-node:
	cd clients/node && npm ci --no-audit --no-fund && node scripts/bench-n2.js $(ARGS)

# The Python example's test starts server/target/leaf-server.jar too; its stubs are generated
# from proto/ into a temporary directory (Debian: python3-grpcio python3-grpc-tools).
PYTHON ?= /usr/bin/python3
test-python:
	@if $(PYTHON) -c 'import grpc, grpc_tools' >/dev/null 2>&1; then \
		PYTHONDONTWRITEBYTECODE=1 $(PYTHON) -m unittest discover -s examples/python -v; \
	else \
		echo "SKIPPED Python example test: $(PYTHON) cannot import grpc and grpc_tools (apt-get install python3-grpcio python3-grpc-tools)"; \
	fi

# The Spring Boot example is a project of its own, built as a user's would be against the leaf-bom
# and starter that `mvn install` put in the local repository (make test runs that first); its test
# starts server/target/leaf-server.jar.
test-spring-boot:
	@if (cd examples/spring-boot && $(MVN) verify); then \
		echo "PASSED Spring Boot example: order IDs from the starter against the packaged server"; \
	else \
		echo "FAILED Spring Boot example (examples/spring-boot/target/surefire-reports)"; exit 1; \
	fi

# The JPA example: a project of its own built against the installed leaf-bom, as the Spring Boot
# example is; its test saves 10,000 orders from 8 threads against the packaged server.
test-jpa:
	@if (cd examples/jpa && $(MVN) verify); then \
		echo "PASSED JPA example: @LeafId entities from 8 threads, no duplicate key"; \
	else \
		echo "FAILED JPA example (examples/jpa/target/surefire-reports)"; exit 1; \
	fi

# The MyBatis-Plus example, built the same way; 10,000 inserts from 8 threads.
test-mybatis:
	@if (cd examples/mybatis && $(MVN) verify); then \
		echo "PASSED MyBatis-Plus example: ASSIGN_ID from Leaf from 8 threads, no duplicate key"; \
	else \
		echo "FAILED MyBatis-Plus example (examples/mybatis/target/surefire-reports)"; exit 1; \
	fi

# Every example against the packaged server (after `mvn install`, as `make test` runs it), once
# each: Node (the package's tests too) and Python in the background beside Spring Boot, JPA and
# MyBatis-Plus one after the other (Maven builds). Logs in target/test-logs/; prints each example's
# output and a PASSED/FAILED line per example; fails if one failed.
test-examples:
	@mkdir -p target/test-logs
	@status=0; \
	( $(MAKE) --no-print-directory test-node > target/test-logs/node.log 2>&1; \
	  echo $$? > target/test-logs/node.rc ) & \
	( $(MAKE) --no-print-directory test-python > target/test-logs/python.log 2>&1; \
	  echo $$? > target/test-logs/python.rc ) & \
	for t in spring-boot jpa mybatis; do \
		$(MAKE) --no-print-directory test-$$t > target/test-logs/$$t.txt 2>&1; \
		echo $$? > target/test-logs/$$t.rc; \
	done; \
	wait; \
	for t in jpa mybatis spring-boot node python; do \
		out=target/test-logs/$$t.log; [ -e $$out ] || out=target/test-logs/$$t.txt; \
		echo "=== example $$t ($$out)"; cat $$out; \
		if [ "$$(cat target/test-logs/$$t.rc)" = 0 ]; then \
			echo "example $$t: PASSED"; else echo "example $$t: FAILED"; status=1; fi; \
	done; \
	exit $$status

# The monitor page in Debian's Chromium, headless, driven by playwright-core (which never downloads
# a browser); it starts server/target/leaf-server.jar and creates tags with the Node example's
# client. Screenshot: target/monitor.png.
CHROMIUM ?= /usr/bin/chromium
test-browser:
	@if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then \
		echo "SKIPPED browser test: node not found"; \
	elif [ ! -x $(CHROMIUM) ]; then \
		echo "SKIPPED browser test: $(CHROMIUM) not found (apt-get install chromium)"; \
	else \
		(cd clients/node && npm ci --no-audit --no-fund) && \
		cd browser-test && npm ci --no-audit --no-fund && CHROMIUM=$(CHROMIUM) npm test; \
	fi

# Packages only the bench module and what it needs (nothing is installed), then runs it:
# progress lines, then the table, also written to target/bench/results.md.
bench:
	$(MVN) package -pl bench -am -DskipTests
	@scripts/cds-archive.sh $(JAR) $(CDS)
	java -jar bench/target/leaf-bench.jar $(ARGS)

image: $(JAR)
	docker build -t leaf-server:$(VERSION) .

clean:
	$(MVN) clean
