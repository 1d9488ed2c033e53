# Shelf API and workers. The node package in dependencies brings Node 24 into node_modules; the
# base image's Node only runs npm ci.
FROM node:24-bookworm-slim
# tini as PID 1 (`docker run --init` is the caller's choice, not ours): it forwards SIGTERM and
# SIGINT (docker stop, Ctrl-C) to Shelf, which drains and exits 0, and reaps orphans. Node as PID 1
# would ignore a SIGTERM that comes before its handlers are installed (start-up, migrations): the
# kernel drops signals PID 1 has no handler for. npm as PID 1 passes them only to its script's
# shell, so Node would not drain unless the script execs it.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY src ./src
COPY workers ./workers
COPY migrations ./migrations
COPY scripts ./scripts
ENV PATH=/app/node_modules/.bin:$PATH HOST=0.0.0.0 PORT=8080 STORAGE_DIR=/data/files
VOLUME /data
EXPOSE 8080
ENTRYPOINT ["/usr/bin/tini", "--"]
# Node 24 from node_modules, not npm: the `serve` script's command line (a test keeps the two
# equal). Compose provides PostgreSQL and Redis, so `npm start`'s helper is not needed.
CMD ["/app/node_modules/.bin/node", "--max-semi-space-size=16", "--max-old-space-size=256", "src/main.mjs"]
