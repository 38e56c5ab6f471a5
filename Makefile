# One target per task. `make test` installs everything it needs on a fresh machine.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export PYSPARK_PYTHON := $(abspath $(PY))

.PHONY: install lint format test bench run harness kafka-dist chromium clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,pipeline]'
	touch $@

# Kafka's own assignors, run by the exactness tests and the benchmark.
harness:
	mvn -q -B -f tests/kafka_reference/pom.xml -DskipTests package

# Apache Kafka's broker and tools from Maven Central, for the local broker.
kafka-dist:
	deploy/local-kafka/kafka fetch

# Debian's headless chromium, for the test of the /groups page.
chromium:
	command -v chromium || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium)

lint: install
	$(VENV)/bin/ruff check service tests bench
	$(VENV)/bin/ruff format --check service tests bench
	$(VENV)/bin/mypy

format: install
	$(VENV)/bin/ruff format service tests bench
	$(VENV)/bin/ruff check --fix service tests bench

test: install harness kafka-dist chromium lint
	$(PY) -m pytest

# The local broker, skewed demo traffic and the sidecar on it, until Ctrl-C.
run: install kafka-dist
	$(PY) -m lagassign.demo

bench: install harness
	$(PY) bench/assign.py

clean:
	rm -rf $(VENV) tests/kafka_reference/target var
