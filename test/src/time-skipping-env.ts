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
 * Starts the time-skipping test server, trying again when it does not answer in time: the SDK
 * gives the Java server 5 s to start, which a loaded two-core machine (the suite's test tasks run
 * side by side) can exceed. Other errors are thrown at once.
 */
async function startTimeSkippingServer(server: string, attempts = 8): Promise<TestWorkflowEnvironment> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await TestWorkflowEnvironment.createTimeSkipping({
        server: { executable: { type: 'existing-path', path: server } },
      });
    } catch (error) {
      if (attempt >= attempts || !/did not start within/.test(String((error as Error).message))) throw error;
      console.warn(
        `[wharf test] the time-skipping server did not start in time (attempt ${attempt}); starting it again`,
      );
      // A load spike (the e2e tier's cluster starting beside this one) passes: wait it out a little.
      await new Promise((resolve) => setTimeout(resolve, 1_500 * attempt));
    }
  }
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
