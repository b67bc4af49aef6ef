import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseSwarm, type SwarmResult, type TaskProgress } from '@wharf/orchestrator';
import { runChainHistory } from '@wharf/orchestrator/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedTexts } from './stored-texts.js';
import { createTimeSkippingSwarmEnv, type TimeSkippingSwarmEnv } from './time-skipping-env.js';

// Approval gates, held tool calls and a swarm waiting for inputs, with timeouts of hours: the
// time-skipping test server jumps the clock to each deadline (or by as much as a test says), so
// every case takes seconds of wall time. Each asserts from the workflow's own timestamps that
// the hours really passed. The server also serves what these swarms use: queries, updates,
// signals between workflows, child workflows, memo, custom search attributes (registered by the
// env) and continue-as-new.

const HOUR = 3_600_000;

/** A protobuf timestamp or duration (seconds may be a Long), in milliseconds. */
function millisecondsOf(
  value: { seconds?: { toString(): string } | null; nanos?: number | null } | null | undefined,
): number {
  return Number(value?.seconds?.toString() ?? 0) * 1000 + Math.floor((value?.nanos ?? 0) / 1e6);
}

function taskOf(result: SwarmResult, name: string): TaskProgress {
  const found = result.tasks.find((task) => task.task === name);
  if (found === undefined) throw new Error(`no task ${name}`);
  return found;
}

describe('waits a clock decides (gates, held tool calls, inputs), on a driven clock', () => {
  let env: TimeSkippingSwarmEnv;
  beforeAll(async () => {
    env = await createTimeSkippingSwarmEnv('timed-waits');
  });
  afterAll(async () => {
    await env?.close();
  });

  /** The timers a workflow's history shows fired: how long each was set for and how long it took. */
  async function firedTimers(workflowId: string): Promise<{ setMs: number; tookMs: number }[]> {
    const history = await env.temporal.client.workflow.getHandle(workflowId).fetchHistory();
    const started = new Map<string, { setMs: number; atMs: number }>();
    const fired: { setMs: number; tookMs: number }[] = [];
    for (const event of history.events ?? []) {
      const atMs = millisecondsOf(event.eventTime);
      const timer = event.timerStartedEventAttributes;
      if (timer?.timerId != null)
        started.set(timer.timerId, { setMs: millisecondsOf(timer.startToFireTimeout), atMs });
      const firedTimer = event.timerFiredEventAttributes;
      const start = firedTimer?.timerId == null ? undefined : started.get(firedTimer.timerId);
      if (start !== undefined) fired.push({ setMs: start.setMs, tookMs: atMs - start.atMs });
    }
    return fired;
  }

  it('approves a gate nobody answers in its hour, and its dependents run', async () => {
    const { workflowId } = await env.wharf.startSwarm(
      parseSwarm(`
name: gate-approve
tasks:
  cleanup:
    approval: { prompt: Clean up?, timeout: 1h, on_timeout: approve }
    script: { content: echo cleaned }
  report:
    depends_on: [cleanup]
    script: { content: echo reported }
`),
    );
    const result = await env.withWorker(() => env.result(workflowId));
    expect(result.status).toBe('completed');
    const cleanup = taskOf(result, 'cleanup');
    expect(cleanup).toMatchObject({ status: 'done', approval: { decision: 'approved', timedOut: true } });
    expect(taskOf(result, 'report').status).toBe('done');
    // The hour passed on the workflow's clock: decided at the deadline, an hour after the request.
    const { requestedAt = 0, deadline = 0, decidedAt = 0 } = cleanup.approval ?? {};
    expect(deadline - requestedAt).toBe(HOUR);
    expect(decidedAt).toBeGreaterThanOrEqual(deadline);
    expect(await firedTimers(workflowId)).toContainEqual({ setMs: HOUR, tookMs: expect.any(Number) });
    for (const timer of await firedTimers(workflowId))
      expect(timer.tookMs).toBeGreaterThanOrEqual(timer.setMs);
  });

  it('takes an answer given half an hour into the hour: the timeout decides nothing', async () => {
    const { workflowId } = await env.wharf.startSwarm(
      parseSwarm(`
name: gate-answered
tasks:
  deploy:
    approval: { prompt: Ship?, timeout: 1h }
    script: { content: echo shipped }
`),
    );
    const result = await env.withWorker(async () => {
      // The clock stands still until the test moves it: the gate opens, the query shows it.
      for (;;) {
        const pending = await env.wharf.pendingApprovals(workflowId).catch(() => []);
        if (pending.some((gate) => gate.task === 'deploy')) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await env.testEnv.sleep(HOUR / 2);
      await env.wharf.approveTask(workflowId, 'deploy', { approve: true, comment: 'in time', by: 'ana' });
      return env.result(workflowId);
    });
    expect(result.status).toBe('completed');
    const deploy = taskOf(result, 'deploy');
    expect(deploy).toMatchObject({
      status: 'done',
      approval: { decision: 'approved', comment: 'in time', by: 'ana' },
    });
    expect(deploy.approval?.timedOut).toBeUndefined();
    const { requestedAt = 0, decidedAt = 0 } = deploy.approval ?? {};
    expect(decidedAt - requestedAt).toBeGreaterThanOrEqual(HOUR / 2);
    expect(decidedAt - requestedAt).toBeLessThan(HOUR);
  });

  it('rejects a gate nobody answers in its hour: the task and its dependents are skipped', async () => {
    const { workflowId } = await env.wharf.startSwarm(
      parseSwarm(`
name: gate-reject
tasks:
  deploy:
    approval: { prompt: Ship?, timeout: 1h }
    script: { content: echo shipped }
  announce:
    depends_on: [deploy]
    script: { content: echo announced }
  build:
    script: { content: echo built }
`),
    );
    const result = await env.withWorker(() => env.result(workflowId));
    expect(result.status).toBe('completed');
    const deploy = taskOf(result, 'deploy');
    expect(deploy).toMatchObject({
      status: 'skipped',
      reason: 'rejected by timeout',
      approval: { decision: 'rejected', timedOut: true },
    });
    expect(deploy.outIds ?? []).toEqual([]);
    expect(taskOf(result, 'announce')).toMatchObject({
      status: 'skipped',
      reason: 'dependency deploy skipped',
    });
    expect(taskOf(result, 'build').status).toBe('done');
    const { requestedAt = 0, decidedAt = 0 } = deploy.approval ?? {};
    expect(decidedAt - requestedAt).toBeGreaterThanOrEqual(HOUR);
  });

  it('fails the swarm when a gate with on_reject: fail times out unanswered', async () => {
    const { workflowId } = await env.wharf.startSwarm(
      parseSwarm(`
name: gate-fail
tasks:
  migrate:
    approval: { timeout: 2h, on_reject: fail }
    script: { content: echo migrated }
`),
    );
    const result = await env.withWorker(() => env.result(workflowId));
    expect(result.status).toBe('failed');
    const migrate = taskOf(result, 'migrate');
    expect(migrate).toMatchObject({ status: 'failed', approval: { decision: 'rejected', timedOut: true } });
    const { requestedAt = 0, decidedAt = 0 } = migrate.approval ?? {};
    expect(decidedAt - requestedAt).toBeGreaterThanOrEqual(2 * HOUR);
  });

  it('rejects a tool call nobody answers in its hour: the model reads so; a call that matches no rule runs', async () => {
    const runs = join(env.dir, 'timeout-runs');
    const model = join(env.dir, 'timeout-model.yaml');
    await writeFile(
      model,
      `replies:
  - tool_calls: [{ tool: shell, input: { command: "echo late >> ${runs}" } }]
  - tool_calls: [{ tool: shell, input: { command: "echo free >> ${runs}" } }]
  - text: Done.
`,
    );
    const { workflowId } = await env.wharf.startSwarm(`
name: held-timeout
agents:
  ops:
    model: scripted:${model}
    tools:
      - name: shell
        approval: { match: { command: late }, timeout: 1h, on_timeout: reject }
tasks:
  clean: { agent: ops, prompt: Clean up. }
`);
    const result = await env.withWorker(() => env.result(workflowId));
    expect(result.status).toBe('completed');
    expect((await readFile(runs, 'utf8')).trim().split('\n')).toEqual(['free']);
    const texts = await storedTexts(env.store);
    expect(texts.some((text) => text.includes('not run: this shell call was rejected by timeout'))).toBe(
      true,
    );
    // The agent task's workflow waited the hour on its clock.
    const timers = await firedTimers(`${workflowId}/agent/clean`);
    expect(timers.map((timer) => timer.setMs)).toContain(HOUR);
    for (const timer of timers) expect(timer.tookMs).toBeGreaterThanOrEqual(timer.setMs);
  });

  it("keeps a gate's deadline across continue-as-new: decided when it opened plus its timeout, not the new run's start plus it", async () => {
    const { workflowId, firstExecutionRunId } = await env.wharf.startSwarm(
      parseSwarm(`
name: gate-carried
tasks:
  early:
    approval: { timeout: 1h, on_timeout: approve }
    script: { content: echo early }
  late:
    approval: { timeout: 3h, on_timeout: approve }
    script: { content: echo late }
`),
      {},
      // Every superstep ends the run: both gates open in the first run; once the early one is
      // decided and its task ran, a new run (an hour on) carries the late gate on.
      { historyEventLimit: 1 },
    );
    const result = await env.withWorker(() => env.result(workflowId));
    expect(result.status).toBe('completed');
    expect(result.metrics.continuedAsNew).toBeGreaterThanOrEqual(1);
    const late = taskOf(result, 'late');
    expect(late).toMatchObject({ status: 'done', approval: { decision: 'approved', timedOut: true } });
    const { requestedAt = 0, decidedAt = 0 } = late.approval ?? {};
    const runStarts: number[] = [];
    for (const run of await runChainHistory(env.temporal.client, workflowId, firstExecutionRunId)) {
      const history = await env.temporal.client.workflow.getHandle(workflowId, run.runId).fetchHistory();
      runStarts.push(millisecondsOf(history.events?.[0]?.eventTime));
    }
    // A run that began an hour or more after the gate opened waited for it: still decided at its
    // first deadline (within the seconds the runs took), not three hours after that run began.
    expect(runStarts.some((start) => start - requestedAt >= HOUR && start <= decidedAt)).toBe(true);
    expect(decidedAt - requestedAt).toBeGreaterThanOrEqual(3 * HOUR);
    expect(decidedAt - requestedAt).toBeLessThan(3 * HOUR + 60_000);
  });

  it('fails a task whose †input nobody gives within the day the swarm waits for inputs', async () => {
    const { workflowId } = await env.wharf.startSwarm(
      parseSwarm(`
name: input-never
tasks:
  greet:
    inputs: { region: †input.region }
    script: { content: 'echo "region=$WHARF_INPUT_REGION"' }
  other:
    script: { content: echo other }
`),
      {},
      { waitForInputsMs: 24 * HOUR },
    );
    const result = await env.withWorker(() => env.result(workflowId));
    expect(result.status).toBe('failed');
    expect(taskOf(result, 'greet')).toMatchObject({
      status: 'failed',
      reason: expect.stringContaining('inputs never resolved'),
    });
    expect(taskOf(result, 'other').status).toBe('done');
    const timers = await firedTimers(workflowId);
    expect(timers.map((timer) => timer.setMs)).toContain(24 * HOUR);
    for (const timer of timers) expect(timer.tookMs).toBeGreaterThanOrEqual(timer.setMs);
  });
});
