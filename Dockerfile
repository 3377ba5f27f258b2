# One image for every part of uncle-rpc; the command picks the part (see docker-compose.yml).
# Stage `build` installs every dependency and compiles the TypeScript (`npm ci` runs `npm run
# build`). The final stage holds only what runs: the compiled files (dist/), the production
# dependencies, the migrations and the data files read at run time; no sources, tests or tools.
# test/repository/dockerCompose.test.ts checks this file set.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY . .
RUN npm ci --no-audit --no-fund

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
# The manifests of every workspace (npm ci needs them all), then the production dependencies only.
COPY package.json package-lock.json ./
COPY apps/cli/package.json apps/cli/
COPY apps/dashboard/package.json apps/dashboard/
COPY apps/indexer/package.json apps/indexer/
COPY apps/rpc/package.json apps/rpc/
COPY apps/sample-node/package.json apps/sample-node/
COPY packages/accounts/package.json packages/accounts/
COPY packages/chain/package.json packages/chain/
COPY packages/config/package.json packages/config/
COPY packages/db/package.json packages/db/
COPY packages/errors/package.json packages/errors/
COPY packages/jsonrpc/package.json packages/jsonrpc/
COPY packages/metrics/package.json packages/metrics/
COPY packages/process/package.json packages/process/
COPY packages/testing/package.json packages/testing/
COPY packages/wire/package.json packages/wire/
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/apps/cli/bin apps/cli/bin
COPY --from=build /app/apps/cli/dist apps/cli/dist
COPY --from=build /app/apps/dashboard/dist apps/dashboard/dist
COPY --from=build /app/apps/indexer/dist apps/indexer/dist
COPY --from=build /app/apps/rpc/dist apps/rpc/dist
COPY --from=build /app/apps/sample-node/dist apps/sample-node/dist
COPY --from=build /app/packages/accounts/dist packages/accounts/dist
COPY --from=build /app/packages/chain/dist packages/chain/dist
COPY --from=build /app/packages/config/dist packages/config/dist
COPY --from=build /app/packages/db/dist packages/db/dist
COPY --from=build /app/packages/errors/dist packages/errors/dist
COPY --from=build /app/packages/jsonrpc/dist packages/jsonrpc/dist
COPY --from=build /app/packages/metrics/dist packages/metrics/dist
COPY --from=build /app/packages/process/dist packages/process/dist
COPY --from=build /app/packages/wire/dist packages/wire/dist
COPY migrations migrations
COPY packages/chain/data packages/chain/data
COPY packages/accounts/data packages/accounts/data
COPY apps/dashboard/static apps/dashboard/static
USER node
ENTRYPOINT ["node", "apps/cli/bin/uncle-rpc.js"]
CMD ["--help"]
