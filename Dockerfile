# One image for every part of uncle-rpc; the command picks the part (see docker-compose.yml).
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY . .
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
USER node
ENTRYPOINT ["node", "apps/cli/bin/uncle-rpc.js"]
CMD ["--help"]
