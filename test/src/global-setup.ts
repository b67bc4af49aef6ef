import { wharfSearchAttributeKinds } from '@wharf/orchestrator';
import { type DevServer, startDevServer } from '@wharf/orchestrator/dev-server';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** gRPC address of the Temporal server the int and e2e tiers run against. */
    temporalAddress: string;
    /** Web UI of that server, when this run started it. */
    temporalUiUrl: string;
  }
}

// Several projects (int, e2e) list this setup; they share one server per run.
interface Shared {
  server: Promise<DevServer>;
  users: number;
}
const key = Symbol.for('@wharf/test/dev-server');
const registry = globalThis as unknown as Record<symbol, Shared | undefined>;

/**
 * Vitest global setup: uses `TEMPORAL_ADDRESS` when set, else starts one local
 * `temporal server start-dev` for the whole run and always stops it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.TEMPORAL_ADDRESS;
  if (external !== undefined && external !== '') {
    project.provide('temporalAddress', external);
    project.provide('temporalUiUrl', '');
    return async () => {};
  }
  let shared = registry[key];
  if (shared === undefined) {
    shared = { server: startDevServer({ ui: false, searchAttributes: wharfSearchAttributeKinds }), users: 0 };
    registry[key] = shared;
  }
  shared.users += 1;
  const server = await shared.server;
  console.log(`[wharf test] Temporal dev server ${server.address} (pid ${server.pid})`);
  project.provide('temporalAddress', server.address);
  project.provide('temporalUiUrl', server.uiUrl ?? '');
  return async () => {
    const current = registry[key];
    if (current === undefined) return;
    current.users -= 1;
    if (current.users === 0) {
      registry[key] = undefined;
      await server.stop();
    }
  };
}
