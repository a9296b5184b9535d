# syntax=docker/dockerfile:1
# The service image: production dependencies only, Node 24 running the TypeScript directly, as a
# non-root user. Build: docker build -t website-checks .   Run: see compose.yaml and the README.

FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev

FROM node:24-slim
ENV NODE_ENV=production PORT=8080
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY src ./src
# The embedded chain's contract artifacts are imported at start (the chain itself is refused in production).
COPY contracts/build ./contracts/build
# One instance without REDIS_URL keeps its watches in SQLite at WATCH_DB_PATH (data/watches.db): mount a volume here.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
# Exec form: node is PID 1 and receives SIGTERM itself (main.ts stops gracefully on it). The V8 flag
# is npm start's (package.json): a young generation of at most 3 × 16 MiB (README, Performance).
CMD ["node", "--max-semi-space-size=16", "src/start.js"]
