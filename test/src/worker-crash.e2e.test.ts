import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSwarm } from '@wharf/orchestrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';
import { startWorkerProcess } from './worker-process.js';

const workerScript = fileURLToPath(new URL('../fixtures/worker-process.mjs', import.meta.url));
const INSTANCES = 6;

/** Whether a process runs (a zombie counts as gone). */
function running(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
  } catch {
    return false;
  }
}

describe('a worker killed mid-swarm', () => {
  let env: SwarmTestEnv;
  beforeAll(async () => {
    env = await createSwarmTestEnv('worker-crash');
  });
  afterAll(async () => {
    await env?.close();
  });

  it('is replaced by a new worker that finishes the swarm; every output is stored exactly once', async () => {
    const pids = join(env.dir, 'crash-pids');
    const definition = parseSwarm(`
name: crash
tasks:
  slow:
    loop: { type: repeat, count: ${INSTANCES} }
    script: { content: 'echo $$ >> ${pids}; sleep 2; echo "instance $WHARF_INSTANCE done"; head -c 200000 /dev/zero | tr "\\000" "z"' }
`);
    const { workflowId, handle } = await env.wharf.startSwarm(definition, {}, { heartbeatTimeoutMs: 3_000 });
    const first = await startWorkerProcess(env, workerScript);
    // Wait until the subagents are running on the first worker, then kill it outright.
    for (let attempt = 0; attempt < 100; attempt++) {
      const running = (await handle.describe()).raw.pendingActivities?.filter(
        (activity) => activity.lastStartedTime,
      );
      if ((running?.length ?? 0) >= INSTANCES) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // …and their scripts have started (each writes its pid first).
    const startedPids = async () =>
      (await readFile(pids, 'utf8').catch(() => '')).split('\n').filter(Boolean).map(Number);
    for (let attempt = 0; attempt < 100 && (await startedPids()).length < INSTANCES; attempt++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    first.kill('SIGKILL');
    await once(first, 'exit');
    // Its spawn helper sees it go and ends the scripts it was running, before any retry starts.
    const started = await startedPids();
    expect(started.length).toBeGreaterThan(0);
    for (let tries = 0; tries < 100 && started.some(running); tries++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(started.filter(running)).toEqual([]);

    const second = await startWorkerProcess(env, workerScript);
    try {
      const result = await env.wharf.result(workflowId);
      expect(result.status).toBe('completed');
      expect(result.outputs.slow).toHaveLength(INSTANCES);
      const stored = await env.store.list({ ownerId: 'default', limit: 1000 });
      const ofRun = stored.records.filter((record) => record.labels.task === 'slow');
      expect(ofRun).toHaveLength(INSTANCES);
      for (const [index, outId] of (result.outputs.slow ?? []).entries()) {
        const body = Buffer.from((await env.store.get({ outId })).body).toString('utf8');
        expect(body.startsWith(`instance ${index} done\n`)).toBe(true);
        expect(body.length).toBe(`instance ${index} done\n`.length + 200_000);
      }
    } finally {
      second.kill('SIGTERM');
      await once(second, 'exit');
    }
  });
});
