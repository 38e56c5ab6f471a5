# The lagassign sidecar alone: Python, the service (with its Rust extension, built in the
# build stage) and its runtime dependencies. No Spark, no JDK (those are for the pipeline
# and the local test broker), no Rust toolchain, no pip or setuptools, no OpenBLAS.
#
#   docker build -t lagassign .
#   docker run --rm -p 127.0.0.1:8321:8321 \
#       -e LAGASSIGN_HOST=0.0.0.0 -e LAGASSIGN_TOKEN=... \
#       -e LAGASSIGN_BOOTSTRAP_SERVERS=kafka:9092 lagassign
#
# The lag history (LAGASSIGN_HISTORY_DIR) writes Parquet with pyarrow, the history extra,
# 165 MB installed: it has its own image, tagged -history. The default image refuses
# LAGASSIGN_HISTORY_DIR at start and says so; everything else is the same.
#
#   docker build --build-arg EXTRAS=[history] -t lagassign:0.1.0-history .
#
# Behind a proxy that re-signs TLS, give its CA certificate (PEM) to the build stage's
# apt, pip and cargo; the runtime image does not keep it:
#
#   docker build --build-arg PROXY_CA="$(cat proxy-ca.pem)" -t lagassign .
#
# Inside a container the service must bind 0.0.0.0 to be reachable from outside
# it, and binding anything but loopback needs LAGASSIGN_TOKEN (or an explicit
# LAGASSIGN_ALLOW_UNAUTHENTICATED=true). As a Kubernetes sidecar it shares the
# pod's network: see deploy/kubernetes/.

# The base images, named here only (a mirror or a pinned digest: --build-arg). Python is
# Debian's own 3.11 on Debian's slim image, in both stages (the venv links to it).
ARG DEBIAN_IMAGE=debian:bookworm-slim
ARG RUST_IMAGE=rust:1-slim-bookworm

FROM ${RUST_IMAGE} AS rust

FROM ${DEBIAN_IMAGE} AS build
ARG PROXY_CA=""
ARG EXTRAS=""
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    CARGO_HTTP_CAINFO=/etc/ssl/certs/ca-certificates.crt \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    RUSTUP_HOME=/usr/local/rustup CARGO_HOME=/usr/local/cargo \
    PATH=/usr/local/cargo/bin:$PATH
# Python with its headers and venv; the Rust extension (native/) needs a C linker,
# NumPy (built here without a BLAS) a C and C++ compiler. All stay in this stage: the
# runtime image gets the venv only. apt reads Debian's archive over plain HTTP with
# signed indexes; from here on every download is HTTPS and trusts the proxy's CA if given.
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
       ca-certificates python3.11 python3.11-dev python3.11-venv gcc g++ libc6-dev \
    && rm -rf /var/lib/apt/lists/*
RUN if [ -n "$PROXY_CA" ]; then \
        printf '%s\n' "$PROXY_CA" > /usr/local/share/ca-certificates/build-proxy-ca.crt \
        && update-ca-certificates; \
    fi
# The build's own pip, current (Debian's is older than some options used below).
RUN /usr/bin/python3.11 -m venv /opt/build && /opt/build/bin/pip install --upgrade pip
ENV PATH=/opt/build/bin:$PATH
COPY --from=rust /usr/local/rustup /usr/local/rustup
COPY --from=rust /usr/local/cargo /usr/local/cargo
# NumPy without OpenBLAS (28 MB of the 59 MB wheel): the service does no linear algebra,
# only array arithmetic, which needs no BLAS. Stripped; its tests are not installed.
RUN pip wheel --no-deps --no-binary numpy -w /wheels "numpy>=1.26,<3" \
        -Csetup-args=-Dallow-noblas=true -Csetup-args=-Dblas=none -Csetup-args=-Dlapack=none \
        -Cinstall-args=--strip -Cinstall-args=--tags=runtime,python-runtime
# A venv without pip or setuptools: the build stage's pip installs into it.
RUN /usr/bin/python3.11 -m venv --without-pip /opt/lagassign
WORKDIR /src
COPY pyproject.toml setup.cfg README.md ./
COPY native ./native
COPY service ./service
# The package and its runtime dependencies only (no [dev], no [pipeline]).
RUN pip --python /opt/lagassign/bin/python install /wheels/numpy-*.whl ".${EXTRAS}"

FROM ${DEBIAN_IMAGE}
# apt-get clean: the package files and apt's caches (87 MB) never reach the image, whatever
# the base image's apt settings.
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3.11 ca-certificates \
    && apt-get clean && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 lagassign \
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
