# One image for every process (docs/deploy.md#the-image). The command picks
# the role; the default is the API:
#
#   node api/main.ts                    the API (PORT, default 3000)
#   node worker/main.ts research        a worker role: research | crm | webhooks | housekeeping
#   node scripts/migrate.ts             the migrations (exits)
#   node scripts/admin.ts --help        the admin commands
#   node scripts/first-build-current.ts a first Worker Versioning build made current (the chart's hook)
#
# Debian (glibc) in every stage, never Alpine: Temporal's core bridge is a
# glibc binary, and the stages must agree on the libc that built node_modules.
#
# A network whose HTTPS goes through a proxy with its own CA passes that CA as
# the build secret `ca` (`--secret id=ca,src=/etc/ssl/certs/ca-certificates.crt`):
# the npm steps read it while they run, and no layer keeps it.

ARG NODE_IMAGE=node:24-bookworm-slim

# Everything installed, then the workflow bundle and the dashboard built.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=secret,id=ca --mount=type=cache,target=/root/.npm \
    if [ -f /run/secrets/ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca; fi; \
    npm ci --no-audit --no-fund --prefer-offline
COPY . .
RUN node scripts/build-workflow-bundle.ts dist/workflow-bundle.js \
 && node scripts/build.ts

# The production dependencies alone (npm's cache is shared with the stage above).
# Optional ones are left out too: npm keeps the optional peers of production
# packages that our devDependencies happen to satisfy (better-auth's vitest and
# React), and the platform binaries of the build tools and embedded-postgres.
# The core bridge ships a native library for every platform: keep this one's.
FROM ${NODE_IMAGE} AS production-dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=secret,id=ca --mount=type=cache,target=/root/.npm \
    if [ -f /run/secrets/ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca; fi; \
    npm ci --omit=dev --omit=optional --no-audit --no-fund --prefer-offline \
 && find node_modules/@temporalio/core-bridge/releases -mindepth 1 -maxdepth 1 \
      ! -name "$(uname -m)-unknown-linux-gnu" -exec rm -r {} +

FROM ${NODE_IMAGE}
LABEL org.opencontainers.image.title=prospect-enrichment \
      org.opencontainers.image.description="Prospect enrichment: the API, the worker roles, the migrations and the admin commands"
# tini runs as PID 1: it hands SIGTERM and SIGINT to Node (which drains on
# them) and reaps orphans, which Node as PID 1 would not. apt's package
# caches (/var/cache/apt/*.bin, about 80 MB) go in the same step, or the layer
# keeps them.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/cache/apt/archives/*.deb
ENV NODE_ENV=production \
    NODE_OPTIONS=--disable-warning=ExperimentalWarning \
    HOST=0.0.0.0 \
    WORKER_METRICS_HOST=0.0.0.0 \
    WORKER_METRICS_PORT=9464 \
    DASHBOARD_MODE=dist \
    WORKFLOW_BUNDLE_PATH=/app/dist/workflow-bundle.js
WORKDIR /app
# Owned by root: the app's user can read its code but not change it.
COPY --from=production-dependencies /app/node_modules node_modules
COPY --from=build /app/package.json ./
COPY --from=build /app/activities activities
COPY --from=build /app/api api
COPY --from=build /app/db db
COPY --from=build /app/domain domain
COPY --from=build /app/integrations integrations
COPY --from=build /app/lib lib
COPY --from=build /app/services services
COPY --from=build /app/worker worker
COPY --from=build /app/workflows workflows
COPY --from=build /app/scripts/migrate.ts /app/scripts/admin.ts /app/scripts/first-build-current.ts scripts/
COPY --from=build /app/scripts/lib scripts/lib
COPY --from=build /app/dashboard/dist dashboard/dist
COPY --from=build /app/dist dist
# By number, not name: Kubernetes can then check runAsNonRoot without a runAsUser
# (the base's user `node` is uid 1000, gid 1000).
USER 1000:1000
EXPOSE 3000 9464
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "api/main.ts"]
# Last, so that a new revision changes only this step: where the image came
# from (`npm run image` passes the tag, the commit and the origin remote).
ARG VERSION=dev
ARG REVISION=unknown
ARG SOURCE=unknown
LABEL org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}"
