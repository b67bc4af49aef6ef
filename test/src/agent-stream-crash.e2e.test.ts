import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { parseSwarm } from '@wharf/orchestrator';
import { readStream, tailStream } from '@wharf/output-store';
import { type ProviderServer, startProviderServer } from '@wharf/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';
import { startWorkerProcess, stopWorkerProcess } from './worker-process.js';

const workerScript = fileURLToPath(new URL('../fixtures/worker-process.mjs', import.meta.url));
const words = Array.from({ length: 150 }, (_, index) => `word${index} `);
const answer = words.join('');

describe('a worker killed while its agent streams an answer', () => {
  let env: SwarmTestEnv;
  let provider: ProviderServer;
  beforeAll(async () => {
    env = await createSwarmTestEnv('agent-stream-crash');
    // A model writing one word every 20 ms over server-sent events: 3 s for the whole answer.
    provider = await startProviderServer(() => ({ text: answer, pieces: words, everyMs: 20 }));
  });
  afterAll(async () => {
    await provider?.stop();
    await env?.close();
  });

  it("leaves the dead attempt's stream abandoned, and the retry's stream holds the whole answer alone", async () => {
    const definition = parseSwarm(`
name: agent-stream-crash
agents:
  writer: { model: "openai-compatible:${provider.url}/v1:steady" }
tasks:
  answer: { agent: writer, prompt: "Write a long answer." }
`);
    const { workflowId } = await env.wharf.startSwarm(definition, {}, { heartbeatTimeoutMs: 2_000 });
    const first = await startWorkerProcess(env, workerScript);
    let second: Awaited<ReturnType<typeof startWorkerProcess>> | undefined;
    try {
      // The step runs and some of its answer is stored: its stream, named by its heartbeat.
      let stream: string | undefined;
      for (let tries = 0; tries < 400; tries++) {
        const live = (await env.wharf.progress(workflowId)).tasks[0]?.live?.[0];
        stream ??= live?.stream;
        if (stream !== undefined) {
          const snapshot = await readStream(env.store, { stream }).catch(() => undefined);
          if ((snapshot?.current.chunks.length ?? 0) > 0) break;
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      if (stream === undefined) throw new Error('no running step named its stream');
      const before = await readStream(env.store, { stream });
      expect(before.current).toMatchObject({ attempt: 1, state: 'open' });
      first.kill('SIGKILL');
      await once(first, 'exit');

      second = await startWorkerProcess(env, workerScript);
      const result = await env.wharf.result(workflowId);
      expect(result.status).toBe('completed');
      const [out] = result.outputs.answer ?? [];
      expect(Buffer.from((await env.store.get({ outId: out ?? '' })).body).toString()).toBe(answer);

      const after = await readStream(env.store, { stream });
      expect(after.attempts.map(({ attempt, state, reason }) => ({ attempt, state, reason }))).toEqual([
        { attempt: 1, state: 'abandoned', reason: 'superseded by attempt 2' },
        { attempt: 2, state: 'sealed', reason: undefined },
      ]);
      // The dead attempt wrote part of the answer; a reader of the stream gets the retry's whole.
      expect(before.current.chunks.length).toBeGreaterThan(0);
      let text = '';
      for await (const event of tailStream(env.store, { stream }, { follow: false }))
        if (event.type === 'chunk') text += Buffer.from(event.bytes).toString();
      expect(text).toBe(answer);
      const seal = await env.store.get({ outId: after.current.sealOutId ?? '' });
      expect(Buffer.from(seal.body).toString()).toBe(answer);
      // The model was asked twice, streaming both times: once per attempt.
      expect(provider.requests.filter((request) => request.stream)).toHaveLength(2);
    } finally {
      if (first.exitCode === null && first.signalCode === null) first.kill('SIGKILL');
      await stopWorkerProcess(second);
    }
  });
});
