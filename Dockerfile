# ---- build: compile TypeScript, then drop dev dependencies ----
FROM node:20-bookworm-slim AS build
WORKDIR /app

# Toolchain for native modules (better-sqlite3, bcrypt) when no prebuilt binary fits.
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*

COPY package.json package-lock.json ./
RUN npm ci

# Sources (see .dockerignore for what stays out of the build context).
COPY . .
RUN npm run build \
    && npm prune --omit=dev

# ---- runtime ----
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app

COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/package.json ./package.json

RUN mkdir -p /app/data /app/storage \
    && chown node:node /app/data /app/storage

USER node
EXPOSE 3000

HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"

CMD ["node", "--heap-growing-percent=50", "--no-allocation-site-pretenuring", "dist/src/main.js"]
