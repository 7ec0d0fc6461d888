# tpccbench in a container image, for the launch files of deploy/ (a
# Kubernetes Job's pods) or any `docker run`.  Debian 12, as the project's
# own machines; the build stage installs what scripts/deps.sh says the build
# needs, the runtime stage only the libraries the binary loads.
#
#   git archive HEAD | docker build -t tpccbench:0.1.0 -    # --version knows the commit
#   docker build --build-arg COMMIT=$(git rev-parse --short HEAD) -t tpccbench:0.1.0 .
#   docker run --rm tpccbench:0.1.0 --version
#   make image        # podman, debian:bookworm-slim made by debootstrap (scripts/image.sh)
#
# ODBC drivers are not in the image; add them to the runtime stage with
#   --build-arg EXTRA_PACKAGES="odbc-postgresql odbc-mariadb"

FROM debian:bookworm-slim AS build
# The build packages first, from the one list (scripts/deps.sh build), so
# that a change to the sources does not install them again.
COPY scripts/deps.sh /src/scripts/deps.sh
RUN sh /src/scripts/deps.sh build && rm -rf /var/lib/apt/lists/*
COPY . /src
WORKDIR /src
# The commit --version prints: .commit (filled in by git archive), else this.
ARG COMMIT=
RUN make -j"$(nproc)" ${COMMIT:+COMMIT=$COMMIT} \
    && make install ${COMMIT:+COMMIT=$COMMIT} PREFIX=/usr/local DESTDIR=/out \
    && /out/usr/local/bin/tpccbench --version

FROM debian:bookworm-slim
ARG EXTRA_PACKAGES=
# What the binary loads (libpq, unixODBC, libyaml, jansson, libmicrohttpd, libcurl),
# and CA certificates for TLS to the database.
RUN apt-get update -qq \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
       libpq5 libodbc2 libyaml-0-2 libjansson4 libmicrohttpd12 libcurl4 ca-certificates $EXTRA_PACKAGES \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --gid 10001 tpccbench \
    && useradd --uid 10001 --gid 10001 --create-home --home-dir /home/tpccbench \
       --shell /usr/sbin/nologin tpccbench \
    && install -d -o 10001 -g 10001 /results
COPY --from=build /out/ /
# A library missing from the list above fails the build here, not a pod later.
RUN tpccbench --version
# Numeric, so that Kubernetes' runAsNonRoot can tell it is not root.
USER 10001:10001
WORKDIR /home/tpccbench
ENTRYPOINT ["tpccbench"]
CMD ["--help"]
