import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { InMemoryArtifactStore } from '@wharf/evidence';
import { InMemoryOutputStore } from '@wharf/output-store';
import type { SubagentInput, SubagentRefInput } from '@wharf/swarm';
import { splitSubagentInput, validateSwarm, wharfFailureTypes } from '@wharf/swarm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActivities } from '../worker/create-activities.js';
import { SubagentDefinitions, storeSubagentDefinition } from './subagent-definition.js';

const workflowId = 'wf-defs';
const identity = { activityType: 'runSubagent', workflowExecution: { workflowId, runId: 'run-a' } };

function scriptInput(content: string, overrides: Partial<SubagentInput> = {}): SubagentInput {
  const definition = validateSwarm({ name: 's', tasks: { fan: { script: { content } } } });
  return {
    swarm: 's',
    ownerId: 'default',
    workflowId,
    task: 'fan',
    instance: 0,
    definition: definition.tasks.fan as SubagentInput['definition'],
    inputs: {},
    inRefs: [],
    ...overrides,
  };
}

/** Stores `input`'s shared part as run `runId` of `ownerId` and returns the instance's ref input. */
async function byRef(
  store: InMemoryOutputStore,
  input: SubagentInput,
  storedAs: { ownerId: string; workflowId: string } = input,
): Promise<SubagentRefInput> {
  const { definition, own } = splitSubagentInput(input);
  const definitionRef = await storeSubagentDefinition({ ...storedAs, definition }, store);
  return { ...own, definitionRef };
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

describe('a script task’s stored definition', () => {
  let dir: string;
  let store: InMemoryOutputStore;
  let activities: ReturnType<typeof createActivities>;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-defs-'));
    store = new InMemoryOutputStore();
    activities = createActivities({
      store,
      artifacts: new InMemoryArtifactStore({ spoolDirectories: [join(dir, 'work')] }),
      workDir: join(dir, 'work'),
      env: { PATH: process.env.PATH },
    });
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is stored once per content and resolved into the whole input, read once per worker', async () => {
    const input = scriptInput('echo hi', { instance: 3, inputs: { index: 3 }, readRuns: ['wf-old'] });
    const ref = await byRef(store, input);
    expect(await byRef(store, { ...input, instance: 4 })).toEqual({ ...ref, instance: 4 });
    expect(Object.keys(ref).sort()).toEqual([
      'definitionRef',
      'inputs',
      'instance',
      'ownerId',
      'readRuns',
      'task',
      'workflowId',
    ]);
    let reads = 0;
    const counted = Object.assign(Object.create(store) as InMemoryOutputStore, {
      get: (...args: Parameters<InMemoryOutputStore['get']>) => {
        reads += 1;
        return store.get(...args);
      },
    });
    const definitions = new SubagentDefinitions(counted);
    expect(await definitions.resolve(ref)).toEqual(input);
    expect(await definitions.resolve({ ...ref, instance: 9, inputs: { index: 9 } })).toEqual({
      ...input,
      instance: 9,
      inputs: { index: 9 },
    });
    expect(reads).toBe(1);
  });

  it('runs a script instance called by ref', async () => {
    const ref = await byRef(store, scriptInput('echo "instance $WHARF_INSTANCE"', { instance: 2 }));
    const result = await new MockActivityEnvironment({ ...identity, activityId: 'a', attempt: 1 }).run(
      activities.runSubagent,
      ref,
    );
    expect(result).toMatchObject({ status: 'ok', preview: 'instance 2\n' });
  });

  it('a missing, forged or foreign ref fails at once, non-retryable, naming it, before the script runs', async () => {
    const marker = join(dir, 'ran');
    const input = scriptInput(`touch ${marker}`);
    const ordinary = await store.emit({
      producer: { ownerId: 'default', runId: workflowId, spawnId: 'agent' },
      content: { kind: 'text', text: JSON.stringify(splitSubagentInput(input).definition) },
      idempotencyKey: 'forged',
    });
    const own = splitSubagentInput(input).own;
    const cases: [SubagentRefInput, string][] = [
      [{ ...own, definitionRef: 'out_missing0000000' }, 'it is not in the store'],
      [{ ...own, definitionRef: ordinary.outId }, 'it is not a definition stored by Wharf'],
      [await byRef(store, input, { ownerId: 'victim-team', workflowId }), 'it belongs to another owner'],
      [
        await byRef(store, input, { ownerId: 'default', workflowId: 'wf-other' }),
        'it was stored by run wf-other, outside the reading run',
      ],
      [{ ...(await byRef(store, input)), task: 'other' }, 'it is the definition of task fan'],
    ];
    for (const [called, why] of cases) {
      const error = await failure(() =>
        new MockActivityEnvironment({ ...identity, activityId: String(Math.random()), attempt: 1 }).run(
          activities.runSubagent,
          called,
        ),
      );
      expect(error).toBeInstanceOf(ApplicationFailure);
      expect(error).toMatchObject({ type: wharfFailureTypes.definitionRef, nonRetryable: true });
      expect(error.message).toContain(`definition ref ${called.definitionRef} refused: ${why}`);
    }
    expect(existsSync(marker)).toBe(false);
  });

  it('a re-run reads a definition its lineage stored', async () => {
    const input = scriptInput('echo again', { readRuns: ['wf-old'] });
    const ref = await byRef(store, input, { ownerId: 'default', workflowId: 'wf-old' });
    expect(await new SubagentDefinitions(store).resolve(ref)).toEqual(input);
  });
});
