import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { WharfClient } from '@wharf/orchestrator/client';
import { openDataDir } from '@wharf/orchestrator/embedded';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadWorkerConfig } from './config.js';
import { startWorker } from './start-worker.js';

const swarm = [
  'name: worker-models',
  'limits: { max_stdout_bytes: 4096, truncation_strategy: summary }',
  'agents:',
  '  writer: { model: "openai:gpt-4o-mini" }',
  '  reader: { model: "anthropic:claude-sonnet-4-5" }',
  'tasks:',
  '  build: { script: { content: "seq 1 20000" } }',
  '  write: { agent: writer, prompt: Write the notes. }',
  '  read: { agent: reader, prompt: Read the notes., depends_on: [write] }',
  'supervisor: { agent: writer, question: Are the notes done?, evidence_budget_bytes: 4000 }',
  'on_failure: complete',
].join('\n');

describe('startWorker with WHARF_MODEL and WHARF_SUMMARIZER', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-worker-models-'));
    // A machine with no provider configured: keys are looked for only when a task needs one.
    for (const name of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'WHARF_MODEL', 'WHARF_SUMMARIZER'])
      delete process.env[name];
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('runs the named agent on its override and summarizes with WHARF_SUMMARIZER; a missing key fails only the task needing it', async () => {
    const taskQueue = `worker-models-${process.pid}`;
    const dataDir = join(dir, 'data');
    const worker = await startWorker(
      loadWorkerConfig({
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        WHARF_DATA_DIR: dataDir,
        WHARF_TASK_QUEUE: taskQueue,
        WHARF_MODEL: 'writer=echo',
        WHARF_SUMMARIZER: 'echo',
      }),
      pino({ level: 'silent' }),
    );
    let result: Awaited<ReturnType<WharfClient['result']>>;
    try {
      const connection = await Connection.connect({ address: inject('temporalAddress') });
      try {
        const wharf = new WharfClient({ connection, taskQueue });
        const { workflowId } = await wharf.startSwarm(swarm, {}, { workdir: dir });
        result = await wharf.result(workflowId);
      } finally {
        await connection.close();
      }
    } finally {
      await worker.stop();
    }
    const task = (name: string) => result.tasks.find((entry) => entry.task === name);
    // The one-activity supervisor runs on its agent's override too, evidence mounted.
    expect(result.supervisor?.answer).toContain('Task: Question: Are the notes done?');
    expect(result.supervisor?.answer).toMatch(
      /^Evidence markers: 2 \(build, write\); evidence mounted for 2/m,
    );
    expect(task('build')?.status).toBe('done');
    expect(task('write')?.status).toBe('done');
    expect(task('read')?.status).toBe('failed');
    expect(task('read')?.reason).toContain('model "anthropic:claude-sonnet-4-5" needs ANTHROPIC_API_KEY');
    const data = await openDataDir(dataDir);
    try {
      const text = async (outId: string) => new TextDecoder().decode((await data.store.get({ outId })).body);
      const notes = await text(task('write')?.outIds[0] ?? '');
      expect(notes).toContain('Echo model (offline): I was sent 1 message');
      expect(notes).toContain('Task: Write the notes.');
      const bodies = await Promise.all((task('build')?.outIds ?? []).map(text));
      const summary = bodies.find((body) => body.startsWith('--- Output Summary'));
      expect(summary).toContain('Task: Output of task build (108894 bytes in full):');
    } finally {
      await data.close();
    }
  });
});
