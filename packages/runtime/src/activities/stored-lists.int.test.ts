import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { InMemoryArtifactStore } from '@wharf/evidence';
import { defaultMaxItemBytes, InMemoryOutputStore, type OutputStore } from '@wharf/output-store';
import type { InstanceRecord, SubagentInput, SubagentResult } from '@wharf/swarm';
import { validateSwarm, wharfFailureTypes } from '@wharf/swarm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActivities } from '../worker/create-activities.js';

const identity = {
  activityId: '1',
  activityType: 'runSubagent',
  workflowExecution: { workflowId: 'wf-lists', runId: 'run-a' },
};

function mapInput(content: string, overrides: Partial<SubagentInput> = {}): SubagentInput {
  const definition = validateSwarm({
    name: 's',
    tasks: {
      list: { script: { content: 'true' }, output: '†data.list' },
      each: { depends_on: ['list'], loop: { type: 'map', over: '†data.list' }, script: { content } },
    },
  });
  return {
    swarm: 's',
    ownerId: 'team',
    workflowId: 'wf-lists',
    task: 'each',
    instance: 0,
    definition: definition.tasks.each as SubagentInput['definition'],
    inputs: {},
    inRefs: [],
    ...overrides,
  };
}

/** Counts the body bytes read through `openBody`. */
function counting(store: InMemoryOutputStore): { store: OutputStore; read: () => number } {
  let bytes = 0;
  const openBody = store.openBody.bind(store);
  store.openBody = async (ref, range) => {
    const body = await openBody(ref, range);
    bytes += body.end - body.start;
    return body;
  };
  return { store, read: () => bytes };
}

describe('stored lists in activities', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-lists-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function run(
    activities: ReturnType<typeof createActivities>,
    input: SubagentInput,
    activityId = '1',
  ) {
    const result: SubagentResult = await new MockActivityEnvironment({
      ...identity,
      activityId,
      attempt: 1,
    }).run(activities.runSubagent, input);
    return result;
  }

  it('indexes a body once; a worker reads the index and the body once for all its map instances', async () => {
    const memory = new InMemoryOutputStore();
    const { store, read } = counting(memory);
    const activities = createActivities({
      store,
      artifacts: new InMemoryArtifactStore({ spoolDirectories: [join(dir, 'work')] }),
      workDir: join(dir, 'work'),
      env: { PATH: process.env.PATH },
    });
    const lines = Array.from({ length: 5_000 }, (_, index) => `doc-${index}.md`);
    const producer = { ownerId: 'team', runId: 'wf-lists', spawnId: 'list' };
    const source = await store.emit({
      producer,
      content: { kind: 'text', text: `${lines.join('\n')}\n` },
      idempotencyKey: 'list',
    });
    const indexInput = {
      workflowId: 'wf-lists',
      ownerId: 'team',
      task: 'each',
      source: source.outId,
      maxItems: 1_000_000,
    };
    const indexed: Awaited<ReturnType<typeof activities.indexItems>> = await new MockActivityEnvironment({
      ...identity,
      activityType: 'indexItems',
    }).run(activities.indexItems, indexInput);
    expect(indexed).toMatchObject({ count: 5_000, format: 'line' });
    if (!('index' in indexed)) return;
    // A retry finds the index stored the first time.
    expect(
      await new MockActivityEnvironment({ ...identity, activityType: 'indexItems' }).run(
        activities.indexItems,
        indexInput,
      ),
    ).toEqual(indexed);

    const before = read();
    const result = await run(
      activities,
      mapInput('echo "$WHARF_INPUTS"', {
        instance: 4_321,
        inputs: { index: 4_321 },
        storedItem: { index: indexed.index, format: 'line' },
      }),
    );
    // The first instance on this worker reads the index (5,000 records of 32 bytes) and the
    // body once, for every instance after it.
    const body = `${lines.join('\n')}\n`;
    expect(read() - before).toBe(5_000 * 32 + Buffer.byteLength(body));
    const stdout = Buffer.from((await store.get(result.outputs[0] as { outId: string })).body).toString();
    expect(JSON.parse(stdout)).toEqual({ index: 4_321, item: 'doc-4321.md' });
    const afterFirst = read();
    const second = await run(
      activities,
      mapInput('echo "$WHARF_INPUTS"', {
        instance: 17,
        inputs: { index: 17 },
        storedItem: { index: indexed.index, format: 'line' },
      }),
    );
    expect(read()).toBe(afterFirst);
    const secondOut = Buffer.from((await store.get(second.outputs[0] as { outId: string })).body).toString();
    expect(JSON.parse(secondOut)).toEqual({ index: 17, item: 'doc-17.md' });

    const refused = await new MockActivityEnvironment({ ...identity, activityType: 'indexItems' }).run(
      activities.indexItems,
      {
        ...indexInput,
        maxItems: 100,
      },
    );
    // Indexed already: the stored index says how many there are, and a lower max_items refuses them.
    expect(refused).toEqual({ error: `the list ${source.outId} has 5000 items, more than 100 (max_items)` });
  });

  it('fails a map instance whose item is over the limit at once, naming it, without reading it', async () => {
    const { store, read } = counting(new InMemoryOutputStore());
    const activities = createActivities({
      store,
      artifacts: new InMemoryArtifactStore({ spoolDirectories: [join(dir, 'work')] }),
      workDir: join(dir, 'work'),
      env: { PATH: process.env.PATH },
    });
    const source = await store.emit({
      producer: { ownerId: 'team', runId: 'wf-lists', spawnId: 'list' },
      content: { kind: 'text', text: `a.md\n${'x'.repeat(defaultMaxItemBytes + 1)}\n` },
      idempotencyKey: 'list',
    });
    const indexed: Awaited<ReturnType<typeof activities.indexItems>> = await new MockActivityEnvironment({
      ...identity,
      activityType: 'indexItems',
    }).run(activities.indexItems, {
      workflowId: 'wf-lists',
      ownerId: 'team',
      task: 'each',
      source: source.outId,
      maxItems: 10,
    });
    if (!('index' in indexed)) throw new Error(indexed.error);
    const before = read();
    const started = Date.now();
    const failure = await run(
      activities,
      mapInput('echo "$WHARF_INPUTS"', { instance: 1, storedItem: { index: indexed.index, format: 'line' } }),
    ).catch((caught: unknown) => caught);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ nonRetryable: true, type: wharfFailureTypes.invalidDefinition });
    expect((failure as Error).message).toBe(
      `task each: item 1 of the list ${source.outId} is ${defaultMaxItemBytes + 1} bytes, more than the ` +
        `${defaultMaxItemBytes} bytes one map item may have; store large data as outputs and list their refs or paths instead`,
    );
    // The index (two records of 32 bytes), and none of the item.
    expect(read() - before).toBe(64);
  });

  it('gives a join every ref of a wide loop and its values, through files past 64 KiB', async () => {
    const store = new InMemoryOutputStore();
    const activities = createActivities({
      store,
      artifacts: new InMemoryArtifactStore({ spoolDirectories: [join(dir, 'work')] }),
      workDir: join(dir, 'work'),
      env: { PATH: process.env.PATH },
    });
    const count = 4_000;
    const records: InstanceRecord[] = Array.from({ length: count }, (_, instance) => ({
      instance,
      status: instance === 7 ? 'failed' : 'ok',
      outIds: [`out_${String(instance).padStart(16, '0')}`],
      bytes: 10,
      exitCode: instance === 7 ? 1 : 0,
      preview: `result ${instance}`,
    }));
    const part = { workflowId: 'wf-lists', ownerId: 'team', task: 'fan' };
    const chunks = [];
    for (let seq = 0; seq * 1_000 < count; seq++) {
      const entries = records.slice(seq * 1_000, (seq + 1) * 1_000);
      const outId = await activities.writeManifestPart({ ...part, part: 'chunk', seq, entries });
      chunks.push({ outId, count: entries.length });
    }
    const manifest = await activities.writeManifestPart({ ...part, part: 'manifest', chunks });
    // The same part again (a retried local activity) is the same output.
    expect(await activities.writeManifestPart({ ...part, part: 'manifest', chunks })).toBe(manifest);

    const script = [
      'jq length "$WHARF_IN_REFS_FILE"',
      '[ -z "$IN_REFS" ] && [ -z "$WHARF_INPUTS" ] && echo "no variables"',
      'jq -r \'.all | length, .[7].outId, .[3998].preview\' "$WHARF_INPUTS_FILE"',
    ].join('; ');
    const definition = validateSwarm({ name: 's', tasks: { join: { script: { content: script } } } });
    const input: SubagentInput = {
      ...mapInput('true'),
      task: 'join',
      definition: definition.tasks.join as SubagentInput['definition'],
      inRefs: ['out_a000000000000000'],
      inManifests: [manifest],
      inputs: { all: { $manifest: manifest, count: count - 1, status: 'ok' } },
    };
    const result = await run(activities, input, '2');
    const stdout = Buffer.from((await store.get(result.outputs[0] as { outId: string })).body).toString();
    expect(result.status).toBe('ok');
    expect(stdout).toBe(`${count + 1}\nno variables\n${count - 1}\nout_0000000000000008\nresult 3999\n`);
  });
});
