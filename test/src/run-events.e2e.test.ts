import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseSwarm, type RunEvent, runEventSchema } from '@wharf/orchestrator';
import { startEventsServer } from '@wharf/orchestrator/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';
import { runWharf, wharfCliPath } from './wharf-cli.js';
import { startWorkerProcess } from './worker-process.js';

const workerScript = fileURLToPath(new URL('../fixtures/worker-process.mjs', import.meta.url));
const INSTANCES = 5;

/**
 * A swarm of a few seconds: a loop of scripts, a gated task, a last one. Given a folder, each
 * instance marks it when it starts (`started-<n>`) and waits there for `go`, so a test can kill
 * the worker while they run; without one, each sleeps 1.5 s.
 */
const swarm = (name: string, hold?: string) =>
  parseSwarm(`
name: ${name}
tasks:
  work:
    loop: { type: repeat, count: ${INSTANCES} }
    script: { content: '${
      hold === undefined
        ? 'sleep 1.5'
        : `touch ${hold}/started-$WHARF_INSTANCE; while [ ! -e ${hold}/go ]; do sleep 0.1; done`
    }; echo "instance $WHARF_INSTANCE"' }
  publish:
    depends_on: [work]
    approval: { prompt: Publish? }
    script: { content: 'echo published' }
  after:
    depends_on: [publish]
    script: { content: 'echo done' }
`);

/** Reads `wharf events --json` in a process of its own; SIGKILLs it once it printed `killAfter` lines. */
async function readThenKill(env: SwarmTestEnv, workflowId: string, killAfter: number): Promise<RunEvent[]> {
  const child = spawn(
    process.execPath,
    [wharfCliPath, 'events', workflowId, '--json', '--address', env.temporal.address],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const events: RunEvent[] = [];
  let buffer = '';
  for await (const chunk of child.stdout) {
    buffer += String(chunk);
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') events.push(runEventSchema.parse(JSON.parse(line)));
    if (events.length >= killAfter) break;
  }
  child.kill('SIGKILL');
  if (child.exitCode === null) await once(child, 'exit');
  return events;
}

/** Every event of a run that ended, read at once. */
async function readAll(env: SwarmTestEnv, workflowId: string, after = 0): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of env.wharf.events(workflowId, { after })) events.push(event);
  return events;
}

/** Answers the gate once the stream says it waits (read from the stream itself). */
async function approveWhenWaiting(env: SwarmTestEnv, workflowId: string): Promise<void> {
  for await (const event of env.wharf.events(workflowId))
    if (event.type === 'approval.waiting' && event.task === 'publish') {
      await env.wharf.approveTask(workflowId, 'publish', { approve: true, comment: 'ship it', by: 'ops' });
      return;
    }
}

/** Checks a whole stream: numbered 1..n, each instance started and finished once, the gate, the end. */
function expectWhole(events: RunEvent[]): void {
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  const count = (type: string, label: string) =>
    events.filter((event) => event.type === type && 'label' in event && event.label === label).length;
  for (let instance = 0; instance < INSTANCES; instance++) {
    expect(count('task.started', `work#${instance}`)).toBe(1);
    expect(count('task.finished', `work#${instance}`)).toBe(1);
  }
  expect(count('task.finished', 'publish')).toBe(1);
  expect(count('task.finished', 'after')).toBe(1);
  expect(events.filter((event) => event.type === 'approval.waiting')).toHaveLength(1);
  expect(events.find((event) => event.type === 'approval.answered')).toMatchObject({
    task: 'publish',
    decision: 'approved',
    comment: 'ship it',
    by: 'ops',
  });
  expect(events[0]?.type).toBe('run.started');
  expect(events.at(-1)).toMatchObject({ type: 'run.ended', status: 'completed' });
}

describe("a run's event stream", () => {
  let env: SwarmTestEnv;
  beforeAll(async () => {
    env = await createSwarmTestEnv('run-events');
  });
  afterAll(async () => {
    await env?.close();
  });

  it('resumes after a reader SIGKILLed mid-run with no gap and no duplicate, through a worker SIGKILLed mid-run', async () => {
    const hold = await mkdtemp(join(tmpdir(), 'wharf-events-hold-'));
    const { workflowId } = await env.wharf.startSwarm(
      swarm('events-crash', hold),
      {},
      { heartbeatTimeoutMs: 3_000 },
    );
    const first = await startWorkerProcess(env, workerScript);
    const approving = approveWhenWaiting(env, workflowId);
    // A reader killed outright a few events in (the loop's instances have started).
    const killed = await readThenKill(env, workflowId, 1 + INSTANCES);
    // The worker killed while the loop's scripts run (each has marked its start); a new one takes
    // over after the heartbeat timeout, and the scripts may end once it runs.
    for (let wait = 0; wait < 600 && (await readdir(hold)).length < INSTANCES; wait++) await sleep(100);
    first.kill('SIGKILL');
    await once(first, 'exit');
    const second = await startWorkerProcess(env, workerScript);
    await writeFile(join(hold, 'go'), '');
    try {
      const last = killed.at(-1)?.seq ?? 0;
      const resumed = await readAll(env, workflowId, last);
      await approving;
      const whole = await readAll(env, workflowId);
      const union = [...killed, ...resumed];
      expect(new Set(union.map((event) => event.seq)).size).toBe(union.length);
      expect(union).toEqual(whole);
      expectWhole(whole);
      // The history agrees: one task.started per runSubagent scheduled, in the same order.
      const history = await env.wharf.client.workflow.getHandle(workflowId).fetchHistory();
      const scheduled = (history.events ?? []).filter(
        (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'runSubagent',
      );
      expect(whole.filter((event) => event.type === 'task.started').map((event) => event.eventId)).toEqual(
        scheduled.map((event) => Number(event.eventId)),
      );
      // The kill was mid-run: some instance ran again on the second worker.
      const retried = (history.events ?? []).filter(
        (event) => (event.activityTaskStartedEventAttributes?.attempt ?? 1) > 1,
      );
      expect(retried.length).toBeGreaterThan(0);
      console.log(
        `run events: ${whole.length} events; reader killed after seq ${last}, resumed with ${resumed.length} more; union = full read, 0 duplicates; worker SIGKILLed mid-run (${retried.length} instance(s) ran again)`,
      );
    } finally {
      second.kill('SIGTERM');
      await once(second, 'exit');
    }
  });

  it('wharf run --follow --json prints one JSON line per event, then the result on one line', async () => {
    const file = join(env.dir, 'two-steps.yaml');
    await writeFile(
      file,
      'name: two-steps\ntasks:\n  one: { script: { content: echo one } }\n  two: { depends_on: [one], script: { content: echo two } }\n',
    );
    const run = await runWharf(
      [
        'run',
        file,
        '--follow',
        '--json',
        '--address',
        env.temporal.address,
        '--data-dir',
        join(env.dir, '.wharf'),
      ],
      env.dir,
    );
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    const events = lines.slice(0, -1).map((line) => runEventSchema.parse(JSON.parse(line)));
    expect(events.map((event) => `${event.type}${'label' in event ? ` ${event.label}` : ''}`)).toEqual([
      'run.started',
      'task.started one',
      'task.finished one',
      'task.started two',
      'task.finished two',
      'run.ended',
    ]);
    expect(JSON.parse(lines.at(-1) ?? '')).toMatchObject({ swarm: 'two-steps', status: 'completed' });
  });

  it('serves the stream as Server-Sent Events over HTTP, resuming after Last-Event-ID', async () => {
    const { workflowId } = await env.wharf.startSwarm(swarm('events-sse'));
    const server = await startEventsServer({ wharf: env.wharf, port: 0 });
    try {
      await env.withWorker(async () => {
        const approving = approveWhenWaiting(env, workflowId);
        const url = `${server.url}/runs/${encodeURIComponent(workflowId)}/events`;
        const firstPart = await sse(url, {}, 3);
        const rest = await sse(url, { 'Last-Event-ID': String(firstPart.at(-1)?.id) });
        await approving;
        const whole = await readAll(env, workflowId);
        expect([...firstPart, ...rest].map((entry) => entry.id)).toEqual(whole.map((event) => event.seq));
        expect([...firstPart, ...rest].map((entry) => entry.event)).toEqual(whole.map((event) => event.type));
        expect(rest.at(-1)?.data).toEqual(whole.at(-1));
        expectWhole(whole);
        const missing = await sse(`${server.url}/runs/no-such-run/events`, {}, 1).catch(
          (error: Error) => error.message,
        );
        expect(missing).toBe('HTTP 404');
        console.log(
          `run events over SSE: ${whole.length} events; first connection ${firstPart.length}, resumed after Last-Event-ID ${firstPart.at(-1)?.id}: ${rest.length}`,
        );
      });
    } finally {
      await server.close();
    }
  });
});

/**
 * Reads a Server-Sent Events stream over real HTTP: its entries (`id`, `event`, parsed `data`),
 * up to `limit` of them (then the connection is dropped), else to the stream's `end` event.
 */
function sse(
  url: string,
  headers: Record<string, string>,
  limit = Number.POSITIVE_INFINITY,
): Promise<{ id: number; event: string; data: unknown }[]> {
  return new Promise((resolve, reject) => {
    const entries: { id: number; event: string; data: unknown }[] = [];
    const req = request(url, { headers: { Accept: 'text/event-stream', ...headers } }, (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        reject(new Error(`HTTP ${response.statusCode}`));
        return;
      }
      let buffer = '';
      response.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
          const fields = new Map<string, string>();
          for (const line of block.split('\n'))
            if (!line.startsWith(':'))
              fields.set(line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2));
          if (fields.get('event') === 'end') {
            req.destroy();
            resolve(entries);
            return;
          }
          if (!fields.has('id')) continue;
          entries.push({
            id: Number(fields.get('id')),
            event: fields.get('event') ?? '',
            data: JSON.parse(fields.get('data') ?? 'null'),
          });
          if (entries.length >= limit) {
            req.destroy();
            resolve(entries);
            return;
          }
        }
      });
      response.on('error', () => resolve(entries));
    });
    req.on('error', (error) => (entries.length >= limit ? resolve(entries) : reject(error)));
    req.end();
  });
}
