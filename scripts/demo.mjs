#!/usr/bin/env node
// `pnpm demo`: the main job. The repository-health swarm arrives with the orchestrator;
// until then this proves the embedded Temporal default works on this machine.
console.log(`Wharf demo
The example swarm (a repository health check run as a durable swarm on a local
Temporal dev server) arrives with @wharf/orchestrator.

What works today:
  pnpm test        install, build, type-check, lint, and run the unit, integration
                   and end-to-end tests against a real Temporal dev server.`);
