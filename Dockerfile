# Builds the Delegate app; run it with docker-compose.yml (which adds MongoDB 7).
# Stages: deps (every dependency) → build (next build) → prod-deps (production
# dependencies only) → the runtime image, which gets the sources, the .next output and
# the production node_modules, and runs as the unprivileged `node` user.
# The server runs TypeScript through tsx, which is why tsx is a production dependency.

FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY . .
# The build cache only speeds up the next build; it has no place in the image.
RUN npx next build && rm -rf .next/cache

FROM node:20-bookworm-slim AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
COPY --from=prod-deps /app/node_modules ./node_modules
# Sources as filtered by .dockerignore (no tests, test support, docs or local data).
COPY . .
# Next may write its caches under .next at run time; everything else stays root-owned.
COPY --from=build --chown=node:node /app/.next ./.next
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
# Readiness (the database answers): "healthy" means ready to serve (docs/metrics.md).
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s CMD node -e "fetch('http://127.0.0.1:3000/api/health/ready').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["node", "--import", "tsx", "server/index.ts"]
