import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wharfSearchAttributeKinds } from '@wharf/orchestrator';
import { type DevServer, startDevServer } from '@wharf/orchestrator/dev-server';
import { cachedWorkflowBundle } from '@wharf/orchestrator/worker';
import type { TestProject } from 'vitest/node';
import { quietLogger } from './quiet-logger.js';
import { startPostgres } from './servers/postgres-server.js';
import { s3ServerFor } from './servers/s3-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** gRPC address of the Temporal server the int and e2e tiers run against. */
    temporalAddress: string;
    /** Web UI of that server, when this run started it. */
    temporalUiUrl: string;
    /** PostgreSQL server (superuser, `postgres` database); each test file creates its own database on it. */
    postgresUrl: string;
    /**
     * The endpoint of the run's S3-compatible server (versitygw, or `WHARF_TEST_S3_ENDPOINT`);
     * empty when it could not be started. `s3Connection` and `s3Error` (declared by
     * `@wharf/output-store/testing`, read with `injectedS3Connection()`) carry the rest.
     */
    s3Endpoint: string;
    /** A file holding Wharf's workflow bundle, built once for the run (`wharfBundle()` reads it). */
    workflowBundlePath: string;
  }
}

// Several projects (int, e2e) list this setup; they share one server of each kind per run.
interface Shared<TServer> {
  server: Promise<TServer>;
  users: number;
}
const registry = globalThis as unknown as Record<symbol, Shared<unknown> | undefined>;

/** Starts the server under `key` once, or joins the one already starting; returns it and a release. */
async function share<TServer extends { stop(): Promise<void> }>(
  key: symbol,
  start: () => Promise<TServer>,
): Promise<{ server: TServer; release: () => Promise<void> }> {
  let shared = registry[key] as Shared<TServer> | undefined;
  if (shared === undefined) {
    shared = { server: start(), users: 0 };
    registry[key] = shared;
  }
  shared.users += 1;
  const server = await shared.server;
  return {
    server,
    release: async () => {
      const current = registry[key];
      if (current === undefined) return;
      current.users -= 1;
      if (current.users === 0) {
        registry[key] = undefined;
        await server.stop();
      }
    },
  };
}

/**
 * PostgreSQL for the tiers: `WHARF_TEST_POSTGRES_URL` when set, else one throwaway server
 * per run (initdb + pg_ctl). A machine without PostgreSQL fails here, loudly: no test is
 * skipped for want of it.
 */
async function providePostgres(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.WHARF_TEST_POSTGRES_URL;
  if (external !== undefined && external !== '') {
    project.provide('postgresUrl', external);
    return async () => {};
  }
  const { server, release } = await share(Symbol.for('@wharf/test/postgres'), startPostgres);
  console.log(`[wharf test] PostgreSQL ${server.url} (${server.version})`);
  project.provide('postgresUrl', server.url);
  return release;
}

type S3Started = Awaited<ReturnType<typeof s3ServerFor>>;
interface SharedS3 {
  server: Promise<S3Started | Error>;
  users: number;
}
const s3Key = Symbol.for('@wharf/test/s3-server');
const s3Registry = globalThis as unknown as Record<symbol, SharedS3 | undefined>;

/**
 * Provides the run's S3 server (one per run, like the Temporal server). A server that cannot
 * start does not fail the tests that need none: it is reported through `s3Error`.
 */
async function provideS3(project: TestProject): Promise<() => Promise<void>> {
  let shared = s3Registry[s3Key];
  if (shared === undefined) {
    shared = {
      server: s3ServerFor(process.env).catch((error: unknown) =>
        error instanceof Error ? error : new Error(String(error)),
      ),
      users: 0,
    };
    s3Registry[s3Key] = shared;
  }
  shared.users += 1;
  const server = await shared.server;
  if (server instanceof Error) {
    project.provide('s3Connection', { endpoint: '', region: '', accessKeyId: '', secretAccessKey: '' });
    project.provide('s3Endpoint', '');
    project.provide('s3Error', `no S3 server for the tests: ${server.message}`);
  } else {
    const { endpoint, region, accessKeyId, secretAccessKey } = server;
    console.log(`[wharf test] S3 server ${endpoint}`);
    project.provide('s3Connection', { endpoint, region, accessKeyId, secretAccessKey });
    project.provide('s3Endpoint', endpoint);
    project.provide('s3Error', '');
  }
  return async () => {
    const current = s3Registry[s3Key];
    if (current === undefined) return;
    current.users -= 1;
    if (current.users === 0) {
      s3Registry[s3Key] = undefined;
      if (!(server instanceof Error)) await server.stop();
    }
  };
}

/**
 * Vitest global setup: uses `TEMPORAL_ADDRESS` when set, else starts one local
 * `temporal server start-dev` for the whole run and always stops it; the same for
 * PostgreSQL (`WHARF_TEST_POSTGRES_URL`). Likewise an S3 server: `WHARF_TEST_S3_ENDPOINT`
 * when set, else a local versitygw.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Workers and `wharf` commands the tests start run scripts unconfined unless a test asks for
  // the sandbox (WHARF_SANDBOX=required): many scripts here write to the test's temporary
  // directory or report their pids, which a sandbox's private /tmp and PID namespace hide.
  process.env.WHARF_SANDBOX ??= 'off';
  const started = await Promise.allSettled([
    provideTemporal(project),
    providePostgres(project),
    provideS3(project),
    provideWorkflowBundle(project),
  ]);
  const stops = started.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const stopAll = async () => {
    for (const stop of stops) await stop();
  };
  const failed = started.find((outcome) => outcome.status === 'rejected');
  if (failed) {
    await stopAll();
    throw failed.reason;
  }
  return stopAll;
}

/**
 * Bundles Wharf's workflows once for every int and e2e file (each bundle takes seconds of CPU),
 * into a cache folder of the run's own that every `wharf` and worker process the tests start
 * finds through `WHARF_CACHE_DIR`: they load that bundle instead of bundling again.
 */
async function provideWorkflowBundle(project: TestProject): Promise<() => Promise<void>> {
  const { server, release } = await share(Symbol.for('@wharf/test/workflow-bundle'), async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wharf-test-cache-'));
    // No `ignoreModules`: a transitive import that breaks the sandbox fails the run here.
    const bundle = await cachedWorkflowBundle({
      dir,
      logger: quietLogger,
      onWarning: (message) => {
        throw new Error(message);
      },
    });
    const path = bundle.codePath;
    if (path === undefined) throw new Error(`the workflow bundle was not cached in ${dir}`);
    return { dir, path, stop: () => rm(dir, { recursive: true, force: true }) };
  });
  process.env.WHARF_CACHE_DIR = server.dir;
  project.provide('workflowBundlePath', server.path);
  return release;
}

async function provideTemporal(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.TEMPORAL_ADDRESS;
  if (external !== undefined && external !== '') {
    project.provide('temporalAddress', external);
    project.provide('temporalUiUrl', '');
    return async () => {};
  }
  const { server, release } = await share<DevServer>(Symbol.for('@wharf/test/dev-server'), () =>
    startDevServer({ ui: false, searchAttributes: wharfSearchAttributeKinds }),
  );
  console.log(`[wharf test] Temporal dev server ${server.address} (pid ${server.pid})`);
  project.provide('temporalAddress', server.address);
  project.provide('temporalUiUrl', server.uiUrl ?? '');
  return release;
}
