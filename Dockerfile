# The lagassign sidecar alone: Python, the service (with its Rust extension, built in the
# build stage) and its runtime dependencies. No Spark, no JDK (those are for the pipeline
# and the local test broker), no Rust toolchain.
#
#   docker build -t lagassign .
#   docker run --rm -p 127.0.0.1:8321:8321 \
#       -e LAGASSIGN_HOST=0.0.0.0 -e LAGASSIGN_TOKEN=... \
#       -e LAGASSIGN_BOOTSTRAP_SERVERS=kafka:9092 lagassign
#
# Inside a container the service must bind 0.0.0.0 to be reachable from outside
# it, and binding anything but loopback needs LAGASSIGN_TOKEN (or an explicit
# LAGASSIGN_ALLOW_UNAUTHENTICATED=true). As a Kubernetes sidecar it shares the
# pod's network: see deploy/kubernetes/.

ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    RUSTUP_HOME=/usr/local/rustup CARGO_HOME=/usr/local/cargo \
    PATH=/usr/local/cargo/bin:$PATH
# The sidecar's Rust extension (native/) needs a Rust toolchain (the official Rust image's)
# and a C linker to build. Both stay in this stage: the runtime image gets the venv only.
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
COPY --from=rust:1-slim-bookworm /usr/local/rustup /usr/local/rustup
COPY --from=rust:1-slim-bookworm /usr/local/cargo /usr/local/cargo
WORKDIR /src
RUN python -m venv /opt/lagassign
COPY pyproject.toml setup.cfg README.md ./
COPY native ./native
COPY service ./service
# The package and its runtime dependencies only (no [dev], no [pipeline]).
RUN /opt/lagassign/bin/pip install .

FROM ${PYTHON_IMAGE}
RUN groupadd --system --gid 10001 lagassign \
    && useradd --system --uid 10001 --gid lagassign --no-create-home \
       --home-dir /nonexistent --shell /usr/sbin/nologin lagassign
COPY --from=build /opt/lagassign /opt/lagassign
ENV PATH=/opt/lagassign/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    LAGASSIGN_PORT=8321
USER 10001:10001
EXPOSE 8321
# Liveness only: /livez never waits on Kafka. Python's own urllib, no curl in the image.
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('LAGASSIGN_PORT', '8321') + '/livez', timeout=2)"]
# `lagassign serve` runs uvicorn with exactly one worker: the lag cache lives in
# the process, so scale with replicas, never with workers.
ENTRYPOINT ["lagassign"]
CMD ["serve"]
