# One target per task. `make test` installs everything it needs on a fresh machine.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export PYSPARK_PYTHON := $(abspath $(PY))
# rustup installs cargo in ~/.cargo/bin, which a non-login shell may not have on PATH.
export PATH := $(HOME)/.cargo/bin:$(PATH)

.PHONY: install lint format check test bench run harness kafka-dist chromium promtool pipeline pipeline-synthetic \
	clean demo bench-shim bench-shim-scale dist dist-python dist-shim dist-sidecar dist-java install-java maven-plugins catchup catchup-quick bench-broker bench-plugin soak bench-scale

install: $(VENV)/.installed

# The sidecar's Rust extension (native/) is built by its install: it needs cargo.
NATIVE_SOURCES := native/Cargo.toml native/Cargo.lock $(wildcard native/src/*.rs)

$(VENV)/.installed: pyproject.toml client/python/pyproject.toml $(NATIVE_SOURCES)
	@command -v cargo >/dev/null || { echo "cargo not found (looked on PATH and in ~/.cargo/bin):" \
		"the sidecar's Rust extension needs a Rust toolchain. Install it with rustup" \
		"(https://rustup.rs: curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh)," \
		"then run make again." >&2; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,pipeline]'
	$(PY) -m pip install -q -e 'client/python[fast]'
	touch $@

# Installable artifacts in dist/: the Python shim's wheel and sdist, the Java shim's jars.
dist: dist-python dist-java

# The packaging tools alone (build, wheel, auditwheel) in a venv of their own: building
# the wheels needs neither the dev environment nor Spark.
DIST_VENV := var/dist-venv
DIST_PY := $(DIST_VENV)/bin/python
$(DIST_VENV)/.ready:
	test -x $(DIST_PY) || $(PYTHON) -m venv $(DIST_VENV)
	$(DIST_PY) -m pip install -q build wheel auditwheel
	touch $@

# The Python shim's wheel and sdist (pure Python: pip install dist/lagassign_client-*.whl),
# and the sidecar's wheel: abi3 (CPython 3.11 on) and manylinux, the compiled
# lagassign._native inside, so pip installs it without a Rust toolchain or a C compiler.
# Building it needs cargo, installing it does not. Its manylinux tag is the one
# `auditwheel show` finds the extension consistent with (it links only libc and libgcc_s,
# so there is nothing to graft: the tag is all auditwheel repair would change).
dist-python: dist-shim dist-sidecar

# Each wheel is built again only when a file it is built from changed (the stamps live in
# dist/, so removing dist/ builds both again).
BUILT_FROM = $(shell find $(1) -type f -not -path '*/__pycache__/*' -not -path '*/build/*' \
	-not -path '*.egg-info/*' -not -name '_native*.so')
SHIM_BUILT_FROM := $(call BUILT_FROM,client/python)
SIDECAR_BUILT_FROM := $(call BUILT_FROM,service pipeline) pyproject.toml setup.cfg README.md $(NATIVE_SOURCES)

dist-shim: dist/.lagassign_client.built
dist/.lagassign_client.built: $(DIST_VENV)/.ready $(SHIM_BUILT_FROM)
	rm -rf dist/lagassign_client-* client/python/build
	$(DIST_PY) -m build --sdist --wheel --outdir dist client/python
	touch $@

dist-sidecar: dist/.lagassign.built
dist/.lagassign.built: $(DIST_VENV)/.ready $(SIDECAR_BUILT_FROM)
	@command -v cargo >/dev/null || { echo "building the sidecar's wheel needs cargo" \
		"(https://rustup.rs); installing the wheel does not." >&2; exit 1; }
	rm -rf dist/lagassign-[0-9]*.whl var/dist-raw build
	$(DIST_PY) -m build --wheel --outdir var/dist-raw .
	tag=$$($(DIST_VENV)/bin/auditwheel show var/dist-raw/lagassign-*.whl | tr '\n' ' ' \
		| sed -n 's/.*consistent with the following platform tag: "\([^"]*\)".*/\1/p'); \
		test -n "$$tag" || { echo "auditwheel found no manylinux tag for the sidecar's wheel" >&2; exit 1; }; \
		$(DIST_PY) -m wheel tags --remove --platform-tag "$$tag" var/dist-raw/lagassign-*.whl
	mkdir -p dist && mv var/dist-raw/lagassign-*-manylinux_*.whl dist/
	$(DIST_PY) -c "import sys, zipfile; names = set(zipfile.ZipFile(sys.argv[1]).namelist()); \
		missing = {f'lagassign/groups/templates/{t}.html' for t in ('base', 'cells', 'group', 'groups')} - names; \
		missing |= set() if any(n.startswith('lagassign/_native.') and n.endswith('.so') for n in names) else {'lagassign/_native*.so'}; \
		sys.exit(f'the sidecar wheel lacks {sorted(missing)}' if missing else 0)" dist/lagassign-[0-9]*.whl
	touch $@

# Kafka's own assignors, run by the exactness tests and the benchmark.
harness:
	mvn -q -B -f tests/kafka_reference/pom.xml -DskipTests package

# The Java shim for a Maven repository: its jar (Jackson shaded inside, so it brings no
# library of its own), sources jar and POM in dist/.
JAVA_SHIM := lagassign-client-$(shell sed -n 's:^  <version>\(.*\)</version>:\1:p' client/java/pom.xml)
dist-java:
	mvn -q -B -f client/java/pom.xml -DskipTests package
	mkdir -p dist
	cp client/java/target/$(JAVA_SHIM).jar client/java/target/$(JAVA_SHIM)-sources.jar dist/
	cp client/java/target/dependency-reduced-pom.xml dist/$(JAVA_SHIM).pom

# dist/'s Java shim into a Maven local repository: MAVEN_REPO_LOCAL=<dir>, else ~/.m2/repository.
MAVEN_REPO_LOCAL ?=
MAVEN_FLAGS ?=
install-java: dist-java
	cd dist && mvn -q -B $(MAVEN_FLAGS) $(if $(MAVEN_REPO_LOCAL),-Dmaven.repo.local=$(abspath $(MAVEN_REPO_LOCAL))) \
		org.apache.maven.plugins:maven-install-plugin:3.1.4:install-file \
		-Dfile=$(JAVA_SHIM).jar -Dsources=$(JAVA_SHIM)-sources.jar -DpomFile=$(JAVA_SHIM).pom

# The Maven plugins the Java shim's build and install use, in the local Maven cache.
maven-plugins:
	mvn -q -B -f client/java/pom.xml dependency:resolve-plugins
	mvn -q -B -f broker/pom.xml dependency:resolve-plugins
	# install-java's install-file goal, with what it runs on (a fresh local repository lacks them)
	mvn -q -B dependency:get -Dartifact=org.apache.maven.plugins:maven-install-plugin:3.1.4

# Apache Kafka's broker and tools from Maven Central, for the local broker.
kafka-dist:
	deploy/local-kafka/kafka fetch

# Debian's headless chromium, for the test of the /groups page.
chromium:
	command -v chromium || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium)

# promtool from Debian's prometheus package, for the unit tests of the alert rules.
promtool:
	command -v promtool || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus)

lint: install
	$(VENV)/bin/ruff check conftest.py service pipeline tests bench harness client/python client/go/mixedtest deploy/demo
	$(VENV)/bin/ruff format --check conftest.py service pipeline tests bench harness client/python client/go/mixedtest deploy/demo
	$(VENV)/bin/mypy
	cd native && cargo fmt --check && cargo clippy --release --locked --quiet -- -D warnings
	cd native && cargo test --release --locked --quiet

format: install
	$(VENV)/bin/ruff format conftest.py service pipeline tests bench harness client/python client/go/mixedtest deploy/demo
	$(VENV)/bin/ruff check --fix conftest.py service pipeline tests bench harness client/python client/go/mixedtest deploy/demo
	cd native && cargo fmt

# The quick loop: lint, types, and every test that needs no broker, Spark, JVM, browser or
# promtool, on every core (pytest-xdist; CHECK_WORKERS=0 runs them in this one process).
CHECK_WORKERS ?= auto
check: lint
	$(PY) -m pytest -q -n $(CHECK_WORKERS) -m "not kafka and not java and not spark and not browser and not promtool and not dist"

# The Go shim's tests (client/go) need the Go toolchain; its modules come from the Go module proxy.
GO ?= $(shell command -v go 2>/dev/null || echo /usr/local/go/bin/go)

# Every test. The broker plugin's `package` runs its tests and builds the jar the test
# brokers load. pytest runs tests/ and the Go shim's mixed-group tests on TEST_WORKERS
# processes (pytest-xdist; conftest.py groups them so that a module's brokers start once
# and one worker holds the SparkSession). Most of the suite waits on brokers and
# consumers: on 2 cores 4 workers took the suite from 696 s to 495 s, the CPU idle 16 %
# of the time instead of 40 %.
TEST_WORKERS ?= 4
test: install harness kafka-dist chromium promtool maven-plugins dist-python lint
	mvn -q -B -f client/java/pom.xml test
	mvn -q -B -f broker/pom.xml package
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup tests client/go/mixedtest
	cd client/go && $(GO) vet ./... && $(GO) test -count=1 ./...

# The local broker, skewed demo traffic and the sidecar on it, until Ctrl-C.
run: install kafka-dist
	$(PY) -m deploy.demo.run

# Rates, forecast weights and the backtest report from the history `make run` recorded
# (or any sidecar's LAGASSIGN_HISTORY_DIR: PIPELINE_HISTORY=...). A missing history is an
# error; `make pipeline-synthetic` runs on a seeded synthetic history on purpose.
# PIPELINE_WEIGHTS: the weights file (the sidecar's LAGASSIGN_WEIGHTS_PATH).
# PIPELINE_HORIZON_S: how far ahead the lag is forecast, which is also how long the sidecar
# takes the weights as fresh by default: 900 s covers one run of the pipeline (121-284 s
# measured on 2 cores), a history roll interval (300 s) and a 5-minute schedule.
# SPARK_MASTER: local[2] by default, or spark://host:7077 for a standalone cluster.
# PIPELINE_ARGS: any further option of `python -m lagassign_pipeline --help`.
PIPELINE_HISTORY ?= var/demo/history
PIPELINE_WEIGHTS ?= var/forecast-weights.json
PIPELINE_HORIZON_S ?= 900
SPARK_MASTER ?= local[2]
PIPELINE_ARGS ?=
PIPELINE_OPTIONS = --weights $(PIPELINE_WEIGHTS) --horizon-seconds $(PIPELINE_HORIZON_S) \
	--master '$(SPARK_MASTER)' $(PIPELINE_ARGS)
pipeline: install
	$(PY) -m lagassign_pipeline --history $(PIPELINE_HISTORY) $(PIPELINE_OPTIONS)

pipeline-synthetic: install
	$(PY) -m lagassign_pipeline --synthetic $(PIPELINE_OPTIONS)

bench: install harness
	$(PY) -m bench.assign

# POST /assign end to end at Kafka's largest group (2,000 members x 1,000,000 partitions),
# with churn, and at 100,000 partitions, through a real sidecar; the CLI on the 1M request.
# Both wire forms side by side (BENCH_SCALE_ARGS="--quick" for one run of each).
BENCH_SCALE_ARGS ?=
bench-scale: install
	$(PY) -m bench.assign_http $(BENCH_SCALE_ARGS)

# The broker plugin: assign() time beside Kafka's UniformAssignor, fallback time.
bench-broker: install kafka-dist
	$(PY) -m bench.broker_plugin

# The broker plugin on a real broker with a real sidecar and confluent-kafka members:
# assignment times, answered share, moves on a join, time held with a hung sidecar
# (BENCH_PLUGIN_ARGS="--members 20 --partitions 2000" for a smaller group).
bench-plugin: install kafka-dist
	$(PY) -m bench.broker_plugin --real-broker $(BENCH_PLUGIN_ARGS)

# A 10-minute soak of a real sidecar on the real broker, with a broker restart in the
# middle: per-minute latency, errors, RSS and open files (SOAK_ARGS="--minutes 3" to shorten).
SOAK_ARGS ?=
soak: install kafka-dist
	$(PY) -m bench.soak $(SOAK_ARGS)

# The consumer-side shim: assign() time, fallback time, a soak of faulty rebalances.
bench-shim: install kafka-dist
	$(PY) -m bench.shim

# Both shims' own time (build the request, check the answer) at 2,000 x 1,000,000 partitions.
bench-shim-scale: install
	$(PY) -m bench.shim_scale

# The headline figure: real consumers at a bounded rate drain skewed backlogs under each
# assignor; catch-up time against the lower bound. Every scenario, both starts (~25 min).
catchup: install kafka-dist
	$(PY) -m bench.catchup

# One scenario (hot-per-topic, an existing group), the classic assignors: under 5 minutes.
catchup-quick: install kafka-dist
	$(PY) -m bench.catchup --quick

# Real consumers with the shim on the demo group: per-member lag and catch-up time under
# range and lagassign.
demo: install kafka-dist
	$(PY) -m deploy.demo.consumers

clean:
	rm -rf $(VENV) tests/kafka_reference/target client/java/target tests/client/java_consumer/target broker/target var dist \
		native/target service/lagassign/_native*.so
