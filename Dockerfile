# syntax=docker/dockerfile:1
# The consent service in a container (docs/container.md): built in one stage,
# its production dependencies installed in another, run as the unprivileged `node` user.

FROM node:22-bookworm-slim AS base
WORKDIR /app
# better-sqlite3 compiles itself when no prebuilt binary matches the platform.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./

FROM base AS build
# `prepare` would build before the sources are here: install first, then build. The client
# package (clients/typescript, a workspace) is no part of the image: --workspaces=false.
RUN npm ci --ignore-scripts --workspaces=false && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
# build:service bundles the cookie banner and the service after tsc, with these scripts.
COPY scripts/build-banner.mjs ./scripts/
COPY scripts/build-bundle.mjs ./scripts/
COPY src ./src
RUN npm run build:service
# The incremental build's state stays out of the image.
RUN rm dist/.tsbuildinfo

FROM base AS deps
# The production tree only; `prepare` (the build) needs the dev tools, and is done above. The
# optional packaged Chromium is left out: the image has Debian's (below).
RUN npm ci --omit=dev --omit=optional --ignore-scripts --workspaces=false \
  && npm rebuild better-sqlite3

FROM node:22-bookworm-slim
# Debian's Chromium, kept patched by the distribution: the cookie scanner's browser
# (docs/cookie-scans.md), at /usr/bin/chromium.
RUN apt-get update \
  && apt-get install -y --no-install-recommends chromium \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
  HOST=0.0.0.0 \
  PORT=3000 \
  DATABASE_URL=/data/consent.db
WORKDIR /app
COPY package.json ./
COPY bin ./bin
COPY vendor ./vendor
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The SQLite file and, unless given as secrets, the key files the service creates on first start.
RUN mkdir /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/api/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "bin/consent-service", "serve"]
