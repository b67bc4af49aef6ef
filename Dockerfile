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
# tini runs as PID 1 and reaps what scripts leave behind: processes orphaned inside the container
# are re-parented to PID 1, and Node as PID 1 never waits for them (60 captures left 120 zombies).
RUN apt-get update && apt-get install -y --no-install-recommends git bash ca-certificates bubblewrap tini \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /out /app
RUN mkdir -p /data && chown node:node /data
ENV NODE_ENV=production WHARF_DATA_DIR=/data TINI_SUBREAPER=1
VOLUME /data
USER node
EXPOSE 8080
# Started through its #! line, which gives Node the worker's memory flags (apps/worker README,
# "Memory"); other flags: CMD ["node", "--max-semi-space-size=16", "--max-old-space-size=2048", "dist/main.js"].
# tini also forwards SIGTERM to the worker, which drains (apps/worker README). TINI_SUBREAPER
# keeps it reaping when something else is PID 1 (compose's `init: true`, `docker run --init`).
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["/app/dist/main.js"]
