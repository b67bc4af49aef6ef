import { type Producer, writeManifest, writeManifestChunk } from '@wharf/output-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';

// A stored list is a ref the workflow trusts: a map loop over it fans out one instance per
// entry and each instance reads its item from the store. Here a starter hands a swarm a
// `$manifest` of its own choosing — another owner's list, then a graph of manifests whose
// levels each name the one below twice (2^40 chunk reads for a naive reader). Both runs fail
// in seconds with the reason named, no instance runs, and the same worker then runs a normal
// swarm to the end.

const yaml = `
name: forged-list
tasks:
  each:
    loop: { type: map, over: †input.list }
    script: { content: 'echo "instance $WHARF_INSTANCE read $WHARF_INPUTS"' }
`;

describe('a forged stored list handed to a map loop', () => {
  let env: SwarmTestEnv;
  beforeAll(async () => {
    env = await createSwarmTestEnv('forged-lists');
  });
  afterAll(async () => {
    await env?.close();
  });

  it('fails fast, naming why, and leaves the worker serving the next swarm', async () => {
    const victim: Producer = { ownerId: 'victim-team', runId: 'victim-run', spawnId: 'secret' };
    const secret = await env.store.emit({
      producer: victim,
      content: { kind: 'text', text: 'victim-secret-body' },
      idempotencyKey: 'secret',
    });
    const victimChunk = await writeManifestChunk(env.store, {
      producer: victim,
      idempotencyKey: 'chunk',
      entries: [{ instance: 0, status: 'ok', outIds: [secret.outId], bytes: 18 }],
    });
    const victimList = await writeManifest(env.store, {
      producer: victim,
      idempotencyKey: 'list',
      chunks: [victimChunk],
    });

    // The graph is stored under the run's own owner and id, as if written by Wharf itself.
    const graphRun = `forged-graph-${Date.now()}`;
    const own: Producer = { ownerId: 'default', runId: graphRun, spawnId: 'each.results' };
    let below = await writeManifestChunk(env.store, {
      producer: own,
      idempotencyKey: 'leaf',
      entries: [{ instance: 0, status: 'ok', outIds: [] }],
    });
    let count = 1;
    for (let level = 0; level < 40; level++) {
      const ref = { outId: below.outId, count, ...(level > 0 ? { manifest: true as const } : {}) };
      const next = await writeManifest(env.store, {
        producer: own,
        idempotencyKey: `level-${level}`,
        chunks: [ref, ref],
      });
      count *= 2;
      below = { outId: next.outId, count };
    }

    await env.withWorker(async () => {
      const started = performance.now();
      const crossOwner = await env.wharf.startSwarm(yaml, {
        list: { $manifest: victimList.outId, count: 1, status: 'ok' },
      });
      const graph = await env.wharf.startSwarm(
        yaml,
        { list: { $manifest: below.outId, count: 1, status: 'ok' } },
        { workflowId: graphRun },
      );
      const [first, second] = await Promise.all([
        env.wharf.result(crossOwner.workflowId),
        env.wharf.result(graph.workflowId),
      ]);
      const seconds = (performance.now() - started) / 1000;
      for (const result of [first, second]) {
        expect(result.status).toBe('failed');
        expect(result.tasks[0]).toMatchObject({ task: 'each', status: 'failed' });
        // No instance ran: nothing of the victim's was read by a script.
        expect(result.tasks[0]?.instances?.done ?? 0).toBe(0);
      }
      expect(first.tasks[0]?.reason).toMatch(
        `stored list ${victimList.outId} refused: it belongs to another owner`,
      );
      expect(second.tasks[0]?.reason).toMatch(/is named twice in the list/);
      expect(seconds).toBeLessThan(30);

      const normal = await env.wharf.startSwarm(yaml, { list: ['a', 'b'] });
      const done = await env.wharf.result(normal.workflowId);
      expect(done.status).toBe('completed');
      expect(done.tasks[0]?.instances).toMatchObject({ done: 2, total: 2 });
    });
  });
});
