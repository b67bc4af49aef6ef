import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { inject } from 'vitest';

/** Connections to the run's Temporal server (see global-setup.ts). One per test file. */
export interface TemporalTestEnv {
  address: string;
  client: Client;
  nativeConnection: NativeConnection;
  close(): Promise<void>;
}

/**
 * Connects a client and a worker connection to the server started by the global setup.
 *
 * @example
 * ```ts
 * let env: TemporalTestEnv;
 * beforeAll(async () => { env = await connectTestEnv(); });
 * afterAll(() => env.close());
 * ```
 */
export async function connectTestEnv(): Promise<TemporalTestEnv> {
  quietRuntime();
  const address = inject('temporalAddress');
  const connection = await Connection.connect({ address });
  const nativeConnection = await NativeConnection.connect({ address });
  return {
    address,
    client: new Client({ connection }),
    nativeConnection,
    async close() {
      await connection.close();
      await nativeConnection.close();
    },
  };
}

/** A task queue name unique to one test, readable in the Web UI. */
export function taskQueueFor(testName: string): string {
  const slug = testName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return `${slug}-${process.pid}-${Date.now().toString(36)}`;
}

let runtimeInstalled = false;

/** Worker logs at WARN: test output shows failures, not every worker state change. */
export function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // A runtime already exists in this process; keep it.
  }
}
