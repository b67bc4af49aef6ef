import { spawn } from 'node:child_process';
import { type AddressInfo, connect, createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import proto from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { wharfSearchAttributeKinds } from '@wharf/orchestrator';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';
import { quietRuntime } from './temporal-env.js';

/** The variable naming the time-skipping test server's start script (`.ci/toolchain.sh` sets it). */
export const timeSkippingServerVariable = 'WHARF_TIME_SKIPPING_SERVER';

/** A swarm test environment on Temporal's time-skipping test server: timers fire when the clock is driven. */
export interface TimeSkippingSwarmEnv extends SwarmTestEnv {
  /** The test server's environment (its `sleep` skips time, `currentTimeMs` reads the server clock). */
  testEnv: TestWorkflowEnvironment;
  /**
   * Waits for the swarm's result with time skipping on: while the worker has nothing to do, the
   * server jumps to the next timer (an approval's `timeout`), so hours pass in milliseconds.
   * Elsewhere time runs at wall-clock speed, so a test can answer a gate first. The server never
   * skips while an activity runs: activity timeouts (an agent's `start_to_close`) stay real time.
   */
  result: SwarmTestEnv['wharf']['result'];
}

/**
 * Starts Temporal's time-skipping test server (the script in `WHARF_TIME_SKIPPING_SERVER`, see
 * test/README.md), registers Wharf's search attributes on it and gives a swarm test environment
 * on it: one per test file. Without the variable it throws, naming it: tests that drive the clock
 * are never skipped.
 *
 * @example
 * ```ts
 * let env: TimeSkippingSwarmEnv;
 * beforeAll(async () => { env = await createTimeSkippingSwarmEnv('gates'); });
 * afterAll(() => env?.close());
 * it('decides a gate nobody answers', async () => {
 *   const { workflowId } = await env.wharf.startSwarm(definition);
 *   const result = await env.withWorker(() => env.result(workflowId));
 * });
 * ```
 */
export async function createTimeSkippingSwarmEnv(name: string): Promise<TimeSkippingSwarmEnv> {
  const server = process.env[timeSkippingServerVariable];
  if (server === undefined || server === '') {
    throw new Error(
      `${timeSkippingServerVariable} is not set: it names the start script of Temporal's time-skipping test server. ` +
        'Run `source .ci/toolchain.sh && wharf_ensure_time_skipping_server` (see test/README.md).',
    );
  }
  quietRuntime();
  const testEnv = await startTimeSkippingServer(server);
  const testService = testEnv.connection.testService;
  try {
    if (testService === undefined) throw new Error('the time-skipping connection has no test service');
    await registerSearchAttributes(testEnv);
  } catch (error) {
    await testEnv.teardown();
    throw error;
  }
  const env = await createSwarmTestEnv(name, {
    temporal: {
      address: testEnv.address,
      client: testEnv.client,
      nativeConnection: testEnv.nativeConnection,
      close: () => testEnv.teardown(),
    },
  });
  return {
    ...env,
    testEnv,
    async result(workflowId) {
      await testService.unlockTimeSkipping({});
      try {
        return await env.wharf.result(workflowId);
      } finally {
        await testService.lockTimeSkipping({});
      }
    },
  };
}

/**
 * Starts the time-skipping test server (a JVM) as a child process of its own on a free port and
 * waits for it to accept connections for up to 90 s, then connects a time-skipping environment
 * to it. The SDK's own start gives the server a fixed 5 s, which a loaded two-core machine (the
 * suite's test tasks side by side, a cluster starting) exceeded eight times in a row: the JVM is
 * slow to start under load, not broken. `teardown()` closes the connections and stops the server.
 */
async function startTimeSkippingServer(server: string): Promise<TestWorkflowEnvironment> {
  const port = await freePort();
  const child = spawn(server, [String(port)], { stdio: ['ignore', 'ignore', 'pipe'], detached: false });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    if (stderr.length < 4_000) stderr += text;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.race([exited, sleep(10_000).then(() => child.kill('SIGKILL'))]);
  };
  try {
    const deadline = Date.now() + 90_000;
    while (!(await accepts(port))) {
      if (child.exitCode !== null)
        throw new Error(`the time-skipping server exited (${child.exitCode}): ${stderr}`);
      if (Date.now() > deadline)
        throw new Error(`the time-skipping server did not listen on ${port} within 90 s: ${stderr}`);
      await sleep(200);
    }
    // `create` is how the SDK's own factories connect (its `server: existing` keeps the process
    // ours); the public `createFromExistingServer` would turn time skipping off.
    const create = (
      TestWorkflowEnvironment as unknown as {
        create(options: Record<string, unknown>): Promise<TestWorkflowEnvironment>;
      }
    ).create.bind(TestWorkflowEnvironment);
    const testEnv = await create({
      supportsTimeSkipping: true,
      server: { type: 'existing' },
      address: `127.0.0.1:${port}`,
    });
    const teardown = testEnv.teardown.bind(testEnv);
    testEnv.teardown = async () => {
      await teardown();
      await stop();
    };
    return testEnv;
  } catch (error) {
    await stop();
    throw error;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const { IndexedValueType } = proto.temporal.api.enums.v1;

/**
 * The swarm workflow upserts `WharfStatus` and `WharfPendingGates`: the test server refuses
 * attributes it does not know. It has no `ListSearchAttributes` (so `ensureSearchAttributes` of
 * `@wharf/orchestrator/embedded` cannot run on it) but takes `AddSearchAttributes` on a fresh server.
 */
async function registerSearchAttributes(testEnv: TestWorkflowEnvironment): Promise<void> {
  await testEnv.connection.operatorService.addSearchAttributes({
    namespace: testEnv.namespace ?? 'default',
    searchAttributes: Object.fromEntries(
      Object.entries(wharfSearchAttributeKinds).map(([name, kind]) => [
        name,
        kind === 'Int'
          ? IndexedValueType.INDEXED_VALUE_TYPE_INT
          : IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
      ]),
    ),
  });
}
