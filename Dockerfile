# syntax=docker/dockerfile:1

# palette-chatops: build with dev dependencies, run with production ones only, as a non-root user.
#   docker build -t palette-chatops .
#   docker run --env-file .env -p 3000:3000 -v palette-chatops-data:/data palette-chatops

# Pinned by digest so a rebuild gets the same base; Dependabot (.github/dependabot.yml, docker)
# proposes the next digest. The tag stays for the reader; Docker pulls by the digest.
FROM node:22-bookworm-slim@sha256:43ac6c60b8f89723f746e8a92ce91abd5017e627ce1ddfe4238355d3a30b772c AS base
WORKDIR /app

# better-sqlite3 falls back to compiling from source when no prebuilt binary fits the platform.
FROM base AS toolchain
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*

FROM toolchain AS build
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# A separate install keeps dev dependencies (tsx, esbuild, TypeScript) and compilers out of the
# final image; the prune drops better-sqlite3's build tree and SQLite's sources, which the compiled
# addon no longer needs (docs/benchmarks.md: the production node_modules before and after).
FROM toolchain AS prod-deps
COPY package.json package-lock.json ./
COPY scripts/prune-production-modules.sh ./scripts/
RUN npm ci --omit=dev --no-audit --no-fund \
 && sh scripts/prune-production-modules.sh node_modules \
 && npm cache clean --force

FROM base AS runtime
# V8's young generation in 4 MB semi-spaces (its default grows them to 16 MB): with the bot's
# other settings this keeps its peak resident memory under 120 MB at 50,000 clusters. Smaller
# ones doubled the ack's tail under a burst of commands (docs/operations.md, Docker: Memory).
# SQLITE_DEFAULT_PATH, not STATE_DB: the file on the /data volume is used only when the operator
# sets neither STATE_DB nor DATABASE_URL, so `-e DATABASE_URL=…` means PostgreSQL (issue 32).
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=4 \
    PORT=3000 \
    SQLITE_DEFAULT_PATH=/data/palette-chatops.sqlite
# Files stay owned by root so the running user cannot rewrite its own code.
COPY package.json ./
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
# No package manager at run time: npm, npx, corepack and yarn are never used by the bot, and
# each is code an attacker in the container could use to fetch more.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack /opt/yarn-* \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
      /usr/local/bin/yarn /usr/local/bin/yarnpkg \
 && chmod 0755 bin/palette-chatops.js \
 && ln -s /app/bin/palette-chatops.js /usr/local/bin/palette-chatops \
 && mkdir -p /data \
 && chown node:node /data
VOLUME /data
# node (uid and gid 1000 in the official image) by number: runAsNonRoot can verify only a number
USER 1000:1000
# 3000: Slack (PORT); 9090: /healthz, /readyz, /metrics when METRICS_PORT=9090 is set
EXPOSE 3000 9090
# Slim images have no curl; Node 22 has fetch. The probe follows METRICS_PORT when it is set.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.METRICS_PORT || process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# --liftoff-only: undici compiles its WebAssembly HTTP parser at the first request, and V8's
# optimising wasm tier takes ~30 MB of scratch memory to do it, the single highest point of the
# bot's resident memory; the baseline tier parses Palette's answers within a few percent as fast.
# A V8 flag belongs on the command line, where V8 reads it before anything runs (NODE_OPTIONS
# does not accept it), so every verb (`docker run IMAGE console`) gets it.
ENTRYPOINT ["node", "--liftoff-only", "/app/bin/palette-chatops.js"]
CMD ["start"]
