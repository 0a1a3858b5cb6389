# syntax=docker/dockerfile:1.7
# One image per Chronicler service, from this one file (ARCHITECTURE §8):
#
#   docker build -f docker/service.Dockerfile --build-arg SERVICE=gateway -t chronicler-gateway .
#
# SERVICE is one of the ten names of services/shared/contracts/src/services.ts (checked
# below and by tests/integration/delivery.test.ts). The build stage compiles the workspace's
# packages (`node scripts/build.mjs`, esbuild: dist/ with source maps); the image holds
# `pnpm deploy --prod` of that service only (its workspace packages copied in with only their
# package.json `files`: dist/ and migrations/, no sources, no tests, no dev dependencies), tini
# as PID 1, and for the gateway the built web app. It runs `node --enable-source-maps
# dist/main.js` as uid 1000 with a read-only root filesystem in mind: only /tmp and DATA_DIR
# (/data, voice-bot recordings in /data/recordings) are written. scripts/images.sh builds and
# checks the gateway and voice-bot images with buildah in CI.

# Node 20 on Debian 12, pinned by digest: bump it deliberately (docker buildx imagetools
# inspect node:20-bookworm-slim) and the image rebuilds from the same bytes until then.
ARG NODE_IMAGE=node:20-bookworm-slim@sha256:2cf067cfed83d5ea958367df9f966191a942351a2df77d6f0193e162b5febfc0

FROM ${NODE_IMAGE} AS build
ARG PNPM_VERSION=10.34.9
ENV PNPM_HOME=/pnpm CI=true
ENV PATH=$PNPM_HOME:$PATH
RUN npm install -g --no-audit --no-fund "pnpm@${PNPM_VERSION}"
WORKDIR /src
# The store is filled from the lockfile alone, so this layer survives source edits.
COPY pnpm-lock.yaml pnpm-workspace.yaml package.json ./
# The patches pnpm-workspace.yaml's patchedDependencies name (@discordjs/voice's DAVE handling,
# nats.js gathering a large message at its size):
# pnpm checks their hashes against the lockfile's at fetch and install.
COPY patches ./patches
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store pnpm fetch --store-dir /pnpm/store
COPY . .
# SERVICE only from here on: the layers above are the same for every service's image (a
# build argument is part of the cache key of every RUN after it), so a layer cache (docker's,
# buildah's --layers) builds them once for all ten.
ARG SERVICE
# One step (each layer is a full copy under buildah's vfs storage): the compiler (the root's
# esbuild) and, for the gateway, the web app's build tools are installed and used here; the
# image gets `pnpm deploy --prod` of the service, whose workspace packages pnpm 10 copies from
# the lockfile when injected, each with what its package.json `files` names (dist/, migrations/).
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store \
    case "${SERVICE}" in \
      gateway|auth|transcript|group|chat|planning|summary|live-fanout|admin-stats|voice-bot) ;; \
      *) echo "SERVICE must be one of: gateway auth transcript group chat planning summary live-fanout admin-stats voice-bot (got '${SERVICE}')" >&2; exit 1 ;; \
    esac && \
    pnpm install --offline --frozen-lockfile --store-dir /pnpm/store --filter chronicler \
      $([ "${SERVICE}" = gateway ] && echo "--filter @chronicler/web...") && \
    mkdir -p /out/public && \
    if [ "${SERVICE}" = gateway ]; then \
      NODE_ENV=production node scripts/build.mjs && cp -r web/dist/. /out/public/; \
    else \
      node scripts/build.mjs --services; \
    fi && \
    pnpm --filter "@chronicler/${SERVICE}" deploy --prod --offline --store-dir /pnpm/store \
      --config.inject-workspace-packages=true --config.package-import-method=copy /out/app && \
    mv /out/public /out/app/public

FROM ${NODE_IMAGE} AS runtime
ARG SERVICE
# The transcript service splits recordings too large for a transcription server (a local
# Whisper's upload limit) with ffmpeg; the gateway joins the parts of a table recording resumed
# after a reload and makes FLAC and mixed downloads with it; the other images do without it.
RUN apt-get update && \
    apt-get install -y --no-install-recommends tini $(case "${SERVICE}" in transcript|gateway) echo ffmpeg ;; esac) && \
    rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    SERVICE=${SERVICE} \
    DATA_DIR=/data \
    WEB_DIST=/app/public \
    OPS_PORT=9464 \
    PORT=8000
WORKDIR /app
COPY --from=build --chown=0:0 /out/app /app
RUN mkdir -p /data/recordings && chown -R 1000:1000 /data
USER 1000:1000
EXPOSE 8000 9464
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.OPS_PORT||9464)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--enable-source-maps", "dist/main.js"]
