import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSwarm, type SwarmResult } from '@wharf/orchestrator';
import { type RunHistoryStats, runChainHistory } from '@wharf/orchestrator/client';
import { manifestEntries } from '@wharf/output-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRefsScript } from './count-refs-script.js';
import { createSwarmTestEnv, replayRunChain, type SwarmTestEnv } from './swarm-env.js';
import { startWorkerProcess, stopWorkerProcess } from './worker-process.js';

const workerScript = fileURLToPath(new URL('../fixtures/wide-worker-process.mjs', import.meta.url));
// 8x the items under a 300-event continue-as-new threshold (about 100 items a run): the small list
// takes several runs (3), the large one (about 20) more than the 8 chunk refs a run carries, so the
// fold of earlier chunks is crossed. 500 and 4,000 items said the same at twice the time: this
// file was the e2e tier's longest by far (200 s of the tier's 440).
const SMALL = 250;
const LARGE = 2_000;
const HISTORY_EVENT_LIMIT = 300;
/** Chunk refs a loop carries between runs before they are folded into a manifest (MAX_CHUNKS). */
const CARRIED_CHUNKS = 8;
const CONCURRENCY = 32;
const MIB = 1024 * 1024;

/**
 * The join: how many refs it got, how many values its `all` input (the loop's stored list) holds
 * and whether they came in a file or a variable, and the line of its context naming the loop.
 */
const joinScript = [
  `${countRefsScript};`,
  'if [ -n "$WHARF_INPUTS_FILE" ]; then echo "$(jq \'.all | length\' "$WHARF_INPUTS_FILE") file";',
  'else echo "$(printf \'%s\' "$WHARF_INPUTS" | jq \'.all | length\') variable"; fi;',
  'grep \'^Loop fan:\' "$WHARF_CONTEXT_FILE"',
].join(' ');

/**
 * A map over a stored list of `items` lines (a task's whole stdout), each instance printing its
 * item and logging that it ran, its outputs kept as a stored list at `†data.fan`, and a join over
 * every instance's out ids and that list.
 */
function wideMap(items: number, dir: string) {
  return parseSwarm(`
name: wide-map
tasks:
  list: { script: { content: 'seq 0 ${items - 1} | sed "s/^/item-/"' }, output: †data.list }
  fan:
    depends_on: [list]
    loop: { type: map, over: †data.list }
    script: { content: 'echo "$WHARF_INSTANCE" >> ${join(dir, 'ran.log')}; printf "%s\\n" "$WHARF_INPUTS"' }
    output: †data.fan
  join:
    depends_on: [fan]
    inputs: { all: †data.fan }
    script: { content: ${JSON.stringify(joinScript)} }
`);
}

/** What one swarm of the test left: its result, every run of its chain, what ran. */
interface WideRun {
  workflowId: string;
  result: SwarmResult;
  runs: RunHistoryStats[];
}

// A map over a runtime list thousands of items long, in a chain of runs cut short by a low
// continue-as-new threshold: the items, the out ids and the records of every instance stay in
// the store, so what history carries does not grow with the list. A worker killed mid-fan-out
// is replaced, and every item's output is stored exactly once.
describe('a map over a stored list of thousands of items', () => {
  let env: SwarmTestEnv;
  // One worker process for both swarms (and its replacement after the kill): starting one costs
  // seconds, and nothing here needs a fresh one.
  let worker: ChildProcess | undefined;
  const done: Record<number, WideRun> = {};
  beforeAll(async () => {
    env = await createSwarmTestEnv('wide-map');
    worker = await startWorkerProcess(env, workerScript, [String(CONCURRENCY)]);
  });
  afterAll(async () => {
    await stopWorkerProcess(worker);
    await env?.close();
  });

  /** Runs the swarm over `items` lines on the worker process; with `killAt`, kills it once that many instances folded. */
  async function runWide(items: number, killAt?: number): Promise<WideRun> {
    await mkdir(join(env.dir, `run-${items}`), { recursive: true });
    const { workflowId, firstExecutionRunId } = await env.wharf.startSwarm(
      wideMap(items, join(env.dir, `run-${items}`)),
      {},
      {
        historyEventLimit: HISTORY_EVENT_LIMIT,
        maxConcurrentTasks: CONCURRENCY,
        heartbeatTimeoutMs: 10_000,
      },
    );
    if (killAt !== undefined) {
      for (;;) {
        const progress = await env.wharf.progress(workflowId).catch(() => undefined);
        const fan = progress?.tasks.find((task) => task.task === 'fan');
        console.log(`[wide-map] ${items}: ${fan?.instances.done}/${fan?.instances.total}`);
        if ((fan?.instances.done ?? 0) >= killAt) break;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      const killed = worker as ChildProcess;
      const exited = once(killed, 'exit');
      killed.kill('SIGKILL');
      await exited;
      worker = await startWorkerProcess(env, workerScript, [String(CONCURRENCY)]);
    }
    const result = await env.wharf.result(workflowId);
    const runs = await runChainHistory(env.temporal.client, workflowId, firstExecutionRunId);
    return { workflowId, result, runs };
  }

  /** Checks one finished swarm: every item ran, its output stored once, in the manifest in order; the join saw every ref. */
  async function checkOutputs(
    items: number,
    { workflowId, result, runs }: WideRun,
    inputsIn: 'file' | 'variable',
  ): Promise<void> {
    expect(result.status).toBe('completed');
    expect(result.metrics.continuedAsNew).toBe(runs.length - 1);
    const fan = result.tasks.find((task) => task.task === 'fan');
    expect(fan).toMatchObject({
      status: 'done',
      instances: { done: items, total: items },
      outIds: [],
      outCount: items,
    });
    const manifest = result.manifests?.fan as string;
    const records: { instance: number; status: string; outIds: string[] }[] = [];
    const read = { scope: { ownerId: 'default', runIds: [workflowId] } };
    for await (const entry of manifestEntries(env.store, { outId: manifest }, read))
      records.push(entry as (typeof records)[number]);
    expect(records.map((record) => record.instance)).toEqual(
      Array.from({ length: items }, (_, index) => index),
    );
    expect(records.every((record) => record.status === 'ok' && record.outIds.length === 1)).toBe(true);
    // Each instance's stdout is stored once, and it is the output of its own item.
    const stdout = new Map<string, string>();
    let cursor: string | undefined;
    do {
      const page = await env.store.list({
        labels: { task: 'fan', stream: 'stdout' },
        limit: 1_000,
        ...(cursor === undefined ? {} : { cursor }),
      });
      for (const record of page.records)
        if (record.producer.runId.startsWith('wide-map'))
          stdout.set(record.outId, record.labels.instance ?? '');
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    const ofRun = records.map((record) => record.outIds[0] as string);
    expect(ofRun.filter((outId) => stdout.has(outId))).toHaveLength(items);
    for (const index of [0, Math.floor(items / 2), items - 1]) {
      const body = Buffer.from((await env.store.get({ outId: ofRun[index] as string })).body).toString(
        'utf8',
      );
      expect(JSON.parse(body)).toEqual({ index, item: `item-${index}` });
    }
    const joined = Buffer.from(
      (await env.store.get({ outId: result.outputs.join?.[0] as string })).body,
    ).toString('utf8');
    // Its refs; the stored list's values, in a variable, or past 64 KiB in a file (as any input
    // past it would be);
    // the line of its context that names the loop's manifest for the outputs it does not show.
    const [count, values, loopLine] = joined.trim().split('\n');
    expect(Number(count)).toBe(items);
    expect(values).toBe(`${items} ${inputsIn}`);
    expect(loopLine).toBe(
      `Loop fan: 10 of ${items} outputs shown; all ${items} are listed in manifest ${manifest} (agents: read_input; scripts: wharf outputs refs ${manifest})`,
    );
  }

  it(`keeps every run's history and payloads the same size at ${SMALL} and ${LARGE} items`, async () => {
    done[SMALL] = await runWide(SMALL);
    // The small list's out ids fit in a variable (under 64 KiB); the large one's go in a file.
    await checkOutputs(SMALL, done[SMALL], 'variable');
    // A worker SIGKILLed a third of the way through: the next one finishes, nothing is stored twice.
    done[LARGE] = await runWide(LARGE, Math.floor(LARGE / 3));
    await checkOutputs(LARGE, done[LARGE], 'file');

    const sizes = (run: WideRun) => ({
      runs: run.runs.length,
      largestRun: Math.max(...run.runs.map((entry) => entry.historyBytes)),
      largestPayload: Math.max(...run.runs.map((entry) => entry.largestPayloadBytes)),
    });
    const small = sizes(done[SMALL]);
    const large = sizes(done[LARGE]);
    console.log(
      `[wide-map] ${SMALL} items: ${JSON.stringify(small)}; ${LARGE} items: ${JSON.stringify(large)}`,
    );
    expect(small.runs).toBeGreaterThan(1);
    expect(large.runs).toBeGreaterThan(small.runs * 4);
    expect(large.runs).toBeGreaterThan(CARRIED_CHUNKS + 1);
    for (const run of [...done[SMALL].runs, ...done[LARGE].runs])
      expect(run.historyBytes).toBeLessThan(4 * MIB);
    // What one event carries does not depend on the list's length: 8x the items, the same largest
    // payload, give or take the loop's chunk refs carried between runs (up to 8, about 100 B each,
    // as many as are written when a cut falls: 858 B more was seen), the bench's 1 KiB allowance.
    expect(large.largestPayload).toBeLessThanOrEqual(16 * 1024);
    expect(large.largestPayload).toBeLessThanOrEqual(small.largestPayload + 1024);

    // Only the instances in flight when the worker died ran twice.
    const ran = (await readFile(join(env.dir, `run-${LARGE}`, 'ran.log'), 'utf8'))
      .split('\n')
      .filter(Boolean);
    const times = new Map<string, number>();
    for (const instance of ran) times.set(instance, (times.get(instance) ?? 0) + 1);
    expect(times.size).toBe(LARGE);
    expect([...times.values()].filter((count) => count > 1).length).toBeLessThanOrEqual(CONCURRENCY);
  }, 600_000);

  it('replays every run of the chain deterministically', async () => {
    const run = done[SMALL];
    expect(run).toBeDefined();
    expect(await replayRunChain(env, run?.workflowId as string, run?.runs ?? [])).toEqual([]);
  });
});
