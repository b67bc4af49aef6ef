import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { InMemoryArtifactStore } from '@wharf/evidence';
import { InMemoryOutputStore, type Producer, writeManifest, writeManifestChunk } from '@wharf/output-store';
import type { SubagentInput } from '@wharf/swarm';
import { validateSwarm, wharfFailureTypes } from '@wharf/swarm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readInputTool } from '../agent/read-input-tool.js';
import { createActivities } from '../worker/create-activities.js';

const workflowId = 'wf-forged';
const identity = { activityType: 'runSubagent', workflowExecution: { workflowId, runId: 'run-a' } };
const attacker: Producer = { ownerId: 'default', runId: workflowId, spawnId: 'agent' };
const victim: Producer = { ownerId: 'victim-team', runId: 'wf-victim', spawnId: 'secret' };

function scriptInput(content: string, overrides: Partial<SubagentInput> = {}): SubagentInput {
  const definition = validateSwarm({ name: 's', tasks: { read: { script: { content } } } });
  return {
    swarm: 's',
    ownerId: 'default',
    workflowId,
    task: 'read',
    instance: 0,
    definition: definition.tasks.read as SubagentInput['definition'],
    inputs: {},
    inRefs: [],
    ...overrides,
  };
}

/** Runs `fn` and returns what it threw (it must throw). */
async function failure(fn: () => Promise<unknown>): Promise<ApplicationFailure> {
  try {
    await fn();
  } catch (error) {
    return error as ApplicationFailure;
  }
  throw new Error('expected a failure');
}

describe('stored lists an agent forges', () => {
  let dir: string;
  let store: InMemoryOutputStore;
  let activities: ReturnType<typeof createActivities>;
  let secret: { outId: string };
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-forged-'));
    store = new InMemoryOutputStore();
    activities = createActivities({
      store,
      artifacts: new InMemoryArtifactStore({ spoolDirectories: [join(dir, 'work')] }),
      workDir: join(dir, 'work'),
      env: { PATH: process.env.PATH },
    });
    secret = await store.emit({
      producer: victim,
      content: { kind: 'text', text: 'victim-secret-body' },
      idempotencyKey: 'secret',
    });
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a map over another owner’s output or list fails at once, non-retryable, naming it', async () => {
    const victimChunk = await writeManifestChunk(store, {
      producer: victim,
      idempotencyKey: 'c',
      entries: [{ instance: 0, status: 'ok', outIds: [secret.outId] }],
    });
    const victimList = await writeManifest(store, {
      producer: victim,
      idempotencyKey: 'm',
      chunks: [victimChunk],
    });
    for (const source of [secret.outId, victimList.outId]) {
      const error = await failure(() =>
        new MockActivityEnvironment({ ...identity, activityId: source, activityType: 'indexItems' }).run(
          activities.indexItems,
          { workflowId, ownerId: 'default', task: 'each', source, maxItems: 100 },
        ),
      );
      expect(error).toBeInstanceOf(ApplicationFailure);
      expect(error).toMatchObject({ type: wharfFailureTypes.forbidden, nonRetryable: true });
      expect(error.message).toMatch(`stored list ${source} refused: it belongs to another owner`);
    }
  });

  it('a forged `$manifest` in a script’s inputs or IN_REFS is refused before the script runs', async () => {
    // An agent's output value may carry anything: here, a stored list of the victim's.
    const victimChunk = await writeManifestChunk(store, {
      producer: victim,
      idempotencyKey: 'c',
      entries: [{ instance: 0, status: 'ok', outIds: [secret.outId], bytes: 18 }],
    });
    const victimList = await writeManifest(store, {
      producer: victim,
      idempotencyKey: 'm',
      chunks: [victimChunk],
    });
    const marker = join(dir, 'ran');
    const inputs = { all: { $manifest: victimList.outId, count: 1, status: 'ok' } };
    for (const input of [
      scriptInput(`touch ${marker}`, { inputs }),
      scriptInput(`touch ${marker}`, { inManifests: [victimList.outId] }),
    ]) {
      const error = await failure(() =>
        new MockActivityEnvironment({ ...identity, activityId: String(Math.random()), attempt: 1 }).run(
          activities.runSubagent,
          input,
        ),
      );
      expect(error).toMatchObject({ type: wharfFailureTypes.forbidden, nonRetryable: true });
    }
    expect(existsSync(marker)).toBe(false);
  });

  it('an exponential graph of the run’s own manifests is refused in milliseconds, not 2^40 reads', async () => {
    let below = await writeManifestChunk(store, {
      producer: attacker,
      idempotencyKey: 'leaf',
      entries: [{ instance: 0, status: 'ok', outIds: [] }],
    });
    let count = 1;
    for (let level = 0; level < 40; level++) {
      const ref = { outId: below.outId, count, ...(level > 0 ? { manifest: true as const } : {}) };
      const next = await writeManifest(store, {
        producer: attacker,
        idempotencyKey: `l${level}`,
        chunks: [ref, ref],
      });
      count *= 2;
      below = { outId: next.outId, count };
    }
    const started = performance.now();
    const error = await failure(() =>
      new MockActivityEnvironment({ ...identity, activityId: 'graph', attempt: 1 }).run(
        activities.runSubagent,
        scriptInput('true', { inManifests: [below.outId] }),
      ),
    );
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(error.message).toMatch(/is named twice in the list/);
  });

  it('read_input never reads another owner’s output, even one listed as readable', async () => {
    const tool = readInputTool({
      store,
      inRefs: [],
      readable: new Set([secret.outId]),
      scope: { ownerId: 'default', runIds: [workflowId] },
    });
    const answer = await tool.execute?.({ out_id: secret.outId }, {
      toolCallId: 't',
      messages: [],
      context: {},
    } as never);
    expect(answer).toBe(`refused: ${secret.outId} is not one of your inputs`);
  });
});
