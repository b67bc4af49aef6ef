# Wharf worker image: builds the monorepo and runs apps/worker.
FROM node:24-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ git && rm -rf /var/lib/apt/lists/*
RUN npm install --global pnpm@10.34.8
WORKDIR /src
COPY . .
RUN pnpm install --frozen-lockfile && pnpm build && pnpm --filter @wharf/worker deploy --prod --legacy /out \
  && chmod 0755 /out/dist/main.js

FROM node:24-bookworm-slim
# bubblewrap: the sandbox of scripts, shell commands and MCP servers (prlimit comes with util-linux).
RUN apt-get update && apt-get install -y --no-install-recommends git bash ca-certificates bubblewrap \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /out /app
RUN mkdir -p /data && chown node:node /data
ENV NODE_ENV=production WHARF_DATA_DIR=/data
VOLUME /data
USER node
EXPOSE 8080
# Started through its #! line, which gives Node the worker's memory flags (apps/worker README,
# "Memory"); other flags: CMD ["node", "--max-semi-space-size=16", "--max-old-space-size=2048", "dist/main.js"].
CMD ["/app/dist/main.js"]
