import { utf8Length } from '@wharf/common';
import { describe, expect, it } from 'vitest';
import { EvidenceCompiler } from './evidence-compiler.js';
import { InMemoryArtifactStore } from './in-memory-artifact-store.js';
import { MAX_REPORTED_MALFORMED, mountEvidence } from './mount-evidence.js';

function deepFreeze<TValue>(value: TValue): TValue {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

async function setup() {
  const store = new InMemoryArtifactStore();
  const put = async (
    workerId: string,
    jobId: string,
    scope: { ownerId: string; runId: string },
    output: string,
  ) => {
    await store.putWorker({ workerId, jobId, ...scope, status: 'succeeded', startedAt: 't' });
    await store.putToolCall(
      workerId,
      { seq: 1, toolName: 'ssh_exec', exitCode: 0, durationMs: 5, startedAt: 'a', endedAt: 'b' },
      output,
    );
  };
  await put('w1', '1', { ownerId: 'o1', runId: '48' }, '/dev/sda1 100G 45G 55G 45% /\n');
  await put('w2', '2', { ownerId: 'o1', runId: '48' }, 'x'.repeat(50_000));
  await put('w9', '9', { ownerId: 'o2', runId: '48' }, 'SECRET of another owner\n');
  await put('w7', '7', { ownerId: 'o1', runId: '47' }, 'SECRET of another run\n');
  return { store, compiler: new EvidenceCompiler({ store }) };
}

const marker = (runId: string, jobId: string, workerId: string) =>
  `[EVIDENCE:run_id=${runId},job_id=${jobId},worker_id=${workerId}]`;

describe('mountEvidence', () => {
  it('expands markers in tool results and user text into copies, leaving the input untouched', async () => {
    const { compiler } = await setup();
    const messages = deepFreeze([
      { role: 'system', content: `system ${marker('48', '1', 'w1')}` },
      { role: 'user', content: `What did this find? ${marker('48', '1', 'w1')}` },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'spawn_worker',
            output: { type: 'text', value: `Worker job 2 completed.\n${marker('48', '2', 'w2')}` },
          },
        ],
      },
    ]);
    const snapshot = structuredClone(messages);
    const result = await mountEvidence(messages, { compiler, runId: '48', ownerId: 'o1', budgetBytes: 4000 });
    expect(messages).toEqual(snapshot);
    expect(result.messages[0]).toBe(messages[0]);
    expect(result.messages[1]?.content).toContain('--- Evidence for Worker 1 (w1) ---');
    expect(result.messages[1]?.content).toContain('45% /');
    const tool = JSON.stringify(result.messages[2]);
    expect(tool).toContain('--- Evidence for Worker 2 (w2) ---');
    expect(tool).toContain('truncated');
    expect(result.markers.map((entry) => entry.outcome)).toEqual(['mounted', 'mounted']);
    const mounted = JSON.stringify(result.messages).length - JSON.stringify(messages).length;
    expect(mounted).toBeLessThan(4000 + 400);
  });

  it('refuses other owners, other runs and mismatched jobs without reading their data', async () => {
    const { compiler, store } = await setup();
    const text = [
      marker('48', '9', 'w9'),
      marker('47', '7', 'w7'),
      marker('48', '7', 'w7'),
      marker('48', '5', 'w1'),
    ].join('\n');
    const before = store.bytesRead;
    const result = await mountEvidence([{ role: 'tool', content: text }], {
      compiler,
      runId: '48',
      ownerId: 'o1',
    });
    const content = String(result.messages[0]?.content);
    expect(content).not.toContain('SECRET');
    expect(content).toContain('[evidence refused for job 9: the worker belongs to another owner]');
    expect(content).toContain('[evidence refused for job 7: run 47 is not this run]');
    expect(content).toContain('[evidence refused for job 7: the worker belongs to another run]');
    expect(content).toContain('[evidence refused for job 5: the worker ran job 1, not job 5]');
    expect(store.bytesRead).toBe(before);
  });

  it('degrades collected or unknown workers to "evidence no longer available"', async () => {
    const { compiler, store } = await setup();
    await store.deleteWorker('w1');
    const result = await mountEvidence(
      [{ role: 'assistant', content: [{ type: 'text', text: marker('48', '1', 'w1') }] }],
      {
        compiler,
        runId: '48',
        ownerId: 'o1',
      },
    );
    expect(JSON.stringify(result.messages)).toContain('[evidence no longer available for job 1]');
    expect(result.markers[0]).toMatchObject({ outcome: 'unavailable' });
  });

  it('degrades instead of throwing when artifacts cannot be read', async () => {
    const { compiler, store } = await setup();
    store.listToolCalls = async () => {
      throw new Error('disk on fire');
    };
    const result = await mountEvidence([{ role: 'tool', content: marker('48', '1', 'w1') }], {
      compiler,
      runId: '48',
      ownerId: 'o1',
    });
    expect(result.messages[0]?.content).toContain('[evidence no longer available for job 1]');
    expect(result.markers[0]).toMatchObject({
      outcome: 'unavailable',
      reason: 'evidence could not be read: disk on fire',
    });
  });

  it('mounts each job once, shares one budget, and reports malformed markers', async () => {
    const { compiler } = await setup();
    const messages = [
      { role: 'tool', content: `${marker('48', '2', 'w2')} ${marker('48', '1', 'w1')}` },
      { role: 'assistant', content: `As shown in ${marker('48', '2', 'w2')} [EVIDENCE:run_id=48]` },
    ];
    const result = await mountEvidence(messages, { compiler, runId: '48', ownerId: 'o1', budgetBytes: 3000 });
    const all = result.messages.map((message) => String(message.content)).join('\n');
    expect(all.match(/--- Evidence for Worker 2/g)).toHaveLength(1);
    expect(String(result.messages[1]?.content)).toContain('(evidence for job 2 is mounted above)');
    const added = utf8Length(all) - utf8Length(messages.map((message) => message.content).join('\n'));
    expect(added).toBeLessThanOrEqual(3000 + 200);
    expect(result.malformed).toEqual([
      { raw: '[EVIDENCE:run_id=48]', start: 55, reason: 'missing job_id, worker_id' },
    ]);
    expect(result.malformedCount).toBe(1);
  });

  it('never throws on 200 000 malformed openings, reports the first ones and counts the rest', async () => {
    const { compiler } = await setup();
    const flood = '[EVIDENCE:'.repeat(200_000);
    const messages = [
      { role: 'tool', content: flood },
      { role: 'user', content: `${marker('48', '1', 'w1')} and [EVIDENCE:job_id=2]` },
    ];
    const result = await mountEvidence(messages, { compiler, runId: '48', ownerId: 'o1', budgetBytes: 3000 });
    expect(result.malformedCount).toBe(200_001);
    expect(result.malformed).toHaveLength(MAX_REPORTED_MALFORMED);
    expect(result.malformed[0]).toEqual({
      raw: '[EVIDENCE:',
      start: 0,
      reason: 'marker is not closed with "]"',
    });
    expect(result.messages[0]?.content).toBe(flood);
    expect(String(result.messages[1]?.content)).toContain('--- Evidence for Worker 1 (w1) ---');
    expect(result.markers).toEqual([{ jobId: '1', workerId: 'w1', outcome: 'mounted' }]);
  });

  it('returns the messages as they are when there is no marker', async () => {
    const { compiler } = await setup();
    const messages = [{ role: 'user', content: 'hello' }];
    const result = await mountEvidence(messages, { compiler, runId: '48', ownerId: 'o1' });
    expect(result.messages).toEqual(messages);
    expect(result.messages).not.toBe(messages);
  });

  it("mounts a re-run's source run (readRuns) by worker, even where job ids repeat, and still refuses any other run", async () => {
    const { store, compiler } = await setup();
    // The re-run (49) ran job 1 again; the source run's job 1 is w1, of run 48.
    await store.putWorker({
      workerId: 'w1b',
      jobId: '1',
      ownerId: 'o1',
      runId: '49',
      status: 'succeeded',
      startedAt: 't',
    });
    await store.putToolCall(
      'w1b',
      { seq: 1, toolName: 'ssh_exec', exitCode: 0, durationMs: 5, startedAt: 'a', endedAt: 'b' },
      'the re-run output\n',
    );
    const text = [marker('48', '1', 'w1'), marker('49', '1', 'w1b'), marker('47', '7', 'w7')].join('\n');
    const options = { compiler, runId: '49', ownerId: 'o1', budgetBytes: 4000 };
    const reading = await mountEvidence([{ role: 'user', content: text }], { ...options, readRuns: ['48'] });
    expect(reading.markers.map((entry) => [entry.workerId, entry.outcome])).toEqual([
      ['w1', 'mounted'],
      ['w1b', 'mounted'],
      ['w7', 'refused'],
    ]);
    const mounted = String(reading.messages[0]?.content);
    expect(mounted).toContain('/dev/sda1');
    expect(mounted).toContain('the re-run output');
    expect(mounted).not.toContain('SECRET of another run');
    const alone = await mountEvidence([{ role: 'user', content: text }], options);
    expect(alone.markers.map((entry) => entry.outcome)).toEqual(['refused', 'mounted', 'refused']);
  });
});
