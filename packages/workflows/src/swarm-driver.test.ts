import type {
  CarriedState,
  ContextPlan,
  IndexItemsInput,
  InstanceOutcome,
  ManifestPartInput,
  PlanContextInput,
  PruneContextInput,
  SubagentCall,
  SuperviseResult,
  SupervisorCall,
  SwarmContextMetrics,
  SwarmDefinition,
} from '@wharf/swarm';
import {
  answerTaskApproval,
  cancelTask,
  createSwarmState,
  parseSwarm,
  planContext,
  type SwarmState,
  swarmStatus,
} from '@wharf/swarm';
import { describe, expect, it } from 'vitest';
import { okResult } from './subagent-results.test.data.js';
import { driveSwarm, type SwarmEnding, type SwarmPort } from './swarm-driver.js';

const place = { ownerId: 'team', workflowId: 'wf-1' };

const ok = okResult;

const metrics: SwarmContextMetrics = {
  totalBytes: 0,
  taskCount: 0,
  truncatedCount: 0,
  externalCount: 0,
  avgRelevance: 0,
  lastPrunedAt: null,
};

/**
 * A port with a clock the test drives and activities that answer at once: every instance
 * succeeds with `out_<label>` unless `outcome` says otherwise. It records what the driver asked.
 */
class FakePort implements SwarmPort {
  clock = 1_000;
  readonly calls: SubagentCall[] = [];
  readonly waits: (number | undefined)[] = [];
  /** The swarm's status each time a publish saw it change, as the search attribute would show it. */
  readonly statuses: string[] = [];
  readonly warnings: string[] = [];
  readonly planned: PlanContextInput[] = [];
  readonly pruned: PruneContextInput[] = [];
  readonly supervised: SupervisorCall[] = [];
  /** Most instances of each task in flight at once, and of all tasks. */
  readonly peak = new Map<string, number>();
  #running = new Map<string, number>();
  publishes = 0;
  outcome: (call: SubagentCall) => InstanceOutcome = (call) => ok(`out_${call.label}`);
  /** What a wait does: true when something arrived, false when the time passed (the clock moves on). */
  onWait: (timeoutMs: number | undefined) => boolean = (timeoutMs) => {
    this.clock += timeoutMs ?? 0;
    return false;
  };
  /** Calls after which history is full mid-superstep. */
  fullAfter = Number.POSITIVE_INFINITY;
  continueAsNew = false;
  planContextFails = false;
  answer: SuperviseResult = { answer: 'all good', evidenceBytes: 10 };
  /** Parts of loops' results stored, by the out id given back (a store the runs of a chain share). */
  readonly parts: Map<string, ManifestPartInput>;
  readonly indexed: IndexItemsInput[] = [];
  /** Items of each stored list `indexItems` is asked about, by source out id. */
  readonly lists = new Map<string, number>();

  constructor(parts = new Map<string, ManifestPartInput>()) {
    this.parts = parts;
  }

  now(): number {
    return this.clock;
  }

  async indexItems(input: IndexItemsInput) {
    this.indexed.push(input);
    const count = this.lists.get(input.source);
    if (count === undefined) return { error: `the body of ${input.source} is one JSON object, not a list` };
    return { index: `out_index_${input.source}`, count, format: 'line' as const };
  }

  async writeManifestPart(input: ManifestPartInput): Promise<string> {
    const outId = `out_part_${this.parts.size}`;
    this.parts.set(outId, input);
    return outId;
  }

  async runInstance(call: SubagentCall): Promise<InstanceOutcome> {
    this.calls.push(call);
    const { task } = call.input;
    for (const key of [task, '*']) {
      const running = (this.#running.get(key) ?? 0) + 1;
      this.#running.set(key, running);
      this.peak.set(key, Math.max(this.peak.get(key) ?? 0, running));
    }
    // Let every other instance the driver means to start now start first.
    for (let tick = 0; tick < 5; tick++) await Promise.resolve();
    for (const key of [task, '*']) this.#running.set(key, (this.#running.get(key) ?? 1) - 1);
    this.clock += 1;
    return this.outcome(call);
  }

  async planContext(input: PlanContextInput): Promise<Record<string, ContextPlan>> {
    this.planned.push(input);
    if (this.planContextFails) throw new Error('planner down');
    const entries = input.pool.entries.map((entry) => ({
      taskId: entry.taskId,
      outId: entry.outId,
      relevance: 1,
    }));
    return Object.fromEntries(input.tasks.map((task) => [task, { entries, maxBytes: 100, maxTasks: 10 }]));
  }

  async pruneContext(input: PruneContextInput): Promise<string[]> {
    this.pruned.push(input);
    return input.pool.entries.slice(0, 1).map((entry) => entry.taskId);
  }

  async contextMetrics(): Promise<SwarmContextMetrics> {
    return metrics;
  }

  async supervise(call: SupervisorCall): Promise<SuperviseResult> {
    this.supervised.push(call);
    return this.answer;
  }

  async waitForChange(timeoutMs?: number): Promise<boolean> {
    this.waits.push(timeoutMs);
    return this.onWait(timeoutMs);
  }

  historyFull(): boolean {
    return this.calls.length >= this.fullAfter;
  }

  shouldContinueAsNew(): boolean {
    return this.continueAsNew;
  }

  publish(state: Readonly<SwarmState>): void {
    this.publishes += 1;
    const status = swarmStatus(state);
    if (status !== this.statuses.at(-1)) this.statuses.push(status);
  }

  warn(message: string): void {
    this.warnings.push(message);
  }
}

function drive(
  run: SwarmState,
  port: FakePort,
  options: { maxConcurrent?: number; waitForInputsMs?: number } = {},
): Promise<SwarmEnding> {
  return driveSwarm(run, port, {
    place,
    maxConcurrent: options.maxConcurrent ?? 200,
    waitForInputsMs: options.waitForInputsMs ?? 0,
  });
}

async function finished(ending: Promise<SwarmEnding>) {
  const settled = await ending;
  if (settled.next !== 'finished') throw new Error(`expected a result, got ${settled.next}`);
  return settled.result;
}

async function carried(ending: Promise<SwarmEnding>): Promise<CarriedState> {
  const settled = await ending;
  if (settled.next !== 'continue-as-new') throw new Error(`expected continue-as-new, got ${settled.next}`);
  return JSON.parse(JSON.stringify(settled.carried)) as CarriedState;
}

const chain: SwarmDefinition = parseSwarm(`
name: chain
tasks:
  fetch: { script: { content: 'true' }, output: †data.fetch }
  report:
    depends_on: [fetch]
    inputs: { source: †data.fetch.outId }
    script: { content: 'true' }
hooks:
  post_task:
    - checkpoint_and_prune: { every: 2, strategy: most_recent, keep_count: 1 }
`);

describe('driveSwarm', () => {
  it('runs each superstep as it plans it, folds it, and ends with the result', async () => {
    const port = new FakePort();
    const result = await finished(drive(createSwarmState(chain), port));
    expect(port.calls.map((call) => [call.label, call.input.inputs, call.input.inRefs])).toEqual([
      ['fetch', {}, []],
      ['report', { source: 'out_fetch' }, ['out_fetch']],
    ]);
    // The pool had fetch's output when report started: its context was planned from it.
    expect(port.planned.map((input) => input.tasks)).toEqual([['report']]);
    expect(port.calls[1]?.input.context?.entries.map((entry) => entry.outId)).toEqual(['out_fetch']);
    // Two outputs in the pool: the post_task hook was due once.
    expect(port.pruned.map((input) => input.sinceCheckpoint)).toEqual([2]);
    expect(result).toMatchObject({
      status: 'completed',
      outputs: { fetch: ['out_fetch'], report: ['out_report'] },
      metrics: { totalBytes: 2, failedCount: 0, continuedAsNew: 0, context: metrics },
    });
    expect(port.statuses).toEqual(['running', 'completed']);
    expect(port.publishes).toBeGreaterThanOrEqual(3);
  });

  it('keeps at most maxConcurrent instances in flight, and a loop at its own max_concurrency', async () => {
    const wide = parseSwarm(`
name: wide
tasks:
  fan: { loop: { type: repeat, count: 6, max_concurrency: 2 }, script: { content: 'true' } }
  solo: { loop: { type: repeat, count: 4 }, script: { content: 'true' } }
`);
    const port = new FakePort();
    const result = await finished(drive(createSwarmState(wide), port, { maxConcurrent: 3 }));
    expect(port.peak.get('fan')).toBe(2);
    expect(port.peak.get('*')).toBe(3);
    expect(result.outputs.fan).toEqual([0, 1, 2, 3, 4, 5].map((index) => `out_fan#${index}`));
  });

  it('hands a superstep cut by a full history to the next run, which starts its unstarted instances first', async () => {
    const wide = parseSwarm(`
name: split
tasks:
  fan: { loop: { type: repeat, count: 5 }, script: { content: 'true' }, output: †data.fan }
  join: { depends_on: [fan], inputs: { fan: †data.fan }, script: { content: 'true' } }
`);
    const first = new FakePort();
    first.fullAfter = 2;
    const state = await carried(drive(createSwarmState(wide), first, { maxConcurrent: 1 }));
    expect(first.calls.map((call) => call.label)).toEqual(['fan#0', 'fan#1']);
    expect(state).toMatchObject({ resume: ['fan'], generation: 1, tasks: { fan: { status: 'running' } } });

    // The first run stored the records it folded before handing over: nothing unstored is carried.
    expect([...first.parts.values()].map((part) => part.part === 'chunk' && part.entries.length)).toEqual([
      2,
    ]);
    const next = new FakePort(first.parts);
    const result = await finished(drive(createSwarmState(wide, { carried: state }), next));
    expect(next.calls.map((call) => call.label)).toEqual(['fan#2', 'fan#3', 'fan#4', 'join']);
    // The join reads the loop's values as one stored list: its manifest names both runs' chunks.
    const list = next.calls[3]?.input.inputs.fan as { $manifest: string; count: number };
    expect(list).toEqual({ $manifest: 'out_part_2', count: 5, status: 'ok' });
    expect(next.parts.get(list.$manifest)).toMatchObject({
      part: 'manifest',
      chunks: [
        { outId: 'out_part_0', count: 2 },
        { outId: 'out_part_1', count: 3 },
      ],
    });
    expect(result).toMatchObject({ status: 'completed', metrics: { continuedAsNew: 1 } });
    expect(result.outputs.fan).toHaveLength(5);
    expect(result.manifests).toEqual({ fan: 'out_part_2' });
  });

  it('has a stored list indexed once by a worker, then runs one instance per item that reads its own', async () => {
    const mapped = parseSwarm(`
name: mapped
tasks:
  list: { script: { content: 'seq 3' }, output: †data.list }
  each: { depends_on: [list], loop: { type: map, over: †data.list }, inputs: { from: †data.list.outId }, script: { content: 'true' } }
`);
    const port = new FakePort();
    port.lists.set('out_list', 3);
    const result = await finished(drive(createSwarmState(mapped), port));
    expect(port.indexed).toEqual([
      { workflowId: 'wf-1', ownerId: 'team', task: 'each', source: 'out_list', maxItems: 1_000_000 },
    ]);
    expect(
      port.calls
        .slice(1)
        .map((call) => [call.label, call.input.inputs, call.input.storedItem, call.input.loopTotal]),
    ).toEqual(
      [0, 1, 2].map((index) => [
        `each#${index}`,
        { from: 'out_list', index },
        { index: 'out_index_out_list', format: 'line' },
        3,
      ]),
    );
    expect(result.tasks.find((task) => task.task === 'each')).toMatchObject({
      status: 'done',
      instances: { done: 3, total: 3 },
    });
  });

  it('fails a map loop whose stored list is no list, naming what the worker found', async () => {
    const mapped = parseSwarm(`
name: mapped
tasks:
  list: { script: { content: 'echo {}' }, output: †data.list }
  each: { depends_on: [list], loop: { type: map, over: †data.list, max_items: 10 }, script: { content: 'true' } }
`);
    const port = new FakePort();
    const result = await finished(drive(createSwarmState(mapped), port));
    expect(port.indexed.map((input) => input.maxItems)).toEqual([10]);
    expect(port.calls.map((call) => call.label)).toEqual(['list']);
    expect(result.tasks.find((task) => task.task === 'each')).toMatchObject({
      status: 'failed',
      reason: 'the body of out_list is one JSON object, not a list',
    });
  });

  it('continues as new between supersteps when the port asks, carrying what the next run needs', async () => {
    const port = new FakePort();
    port.continueAsNew = true;
    const state = await carried(drive(createSwarmState(chain), port));
    expect(port.calls.map((call) => call.label)).toEqual(['fetch']);
    expect(state.resume).toBeUndefined();
    const next = new FakePort();
    const result = await finished(drive(createSwarmState(chain, { carried: state }), next));
    expect(next.calls.map((call) => call.label)).toEqual(['report']);
    expect(result.outputs).toEqual({ fetch: ['out_fetch'], report: ['out_report'] });
  });

  it('waits for a missing input: runs the task once it arrives, fails it when none does', async () => {
    const gated = parseSwarm(`
name: gated
tasks:
  greet: { inputs: { who: †input.who }, script: { content: 'true' } }
`);
    const answered = new FakePort();
    const run = createSwarmState(gated);
    answered.onWait = () => {
      run.context.addInput('who', 'wharf', '2026-01-01T00:00:00.000Z');
      return true;
    };
    const result = await finished(drive(run, answered, { waitForInputsMs: 5_000 }));
    expect(answered.waits).toEqual([5_000]);
    expect(answered.calls[0]?.input.inputs).toEqual({ who: 'wharf' });
    expect(result.status).toBe('completed');

    const silent = new FakePort();
    const unanswered = await finished(drive(createSwarmState(gated), silent, { waitForInputsMs: 5_000 }));
    expect(silent.calls).toEqual([]);
    expect(unanswered.status).toBe('failed');
    expect(unanswered.tasks[0]).toMatchObject({
      status: 'failed',
      reason: 'inputs never resolved: †input.who',
      endedAt: 6_000,
    });
  });

  it('holds a gated task until it is answered or its deadline passes', async () => {
    const gated = parseSwarm(`
name: release
tasks:
  deploy: { approval: { timeout: 1m, on_timeout: approve }, script: { content: 'true' } }
  notify: { approval: { prompt: Tell them? }, script: { content: 'true' } }
`);
    const port = new FakePort();
    const run = createSwarmState(gated);
    port.onWait = (timeoutMs) => {
      if (timeoutMs === undefined) {
        answerTaskApproval(run, { task: 'notify', approve: false, comment: 'no' }, port.clock);
        return true;
      }
      port.clock += timeoutMs;
      return false;
    };
    const result = await finished(drive(run, port));
    // The first wait lasts until deploy's deadline; once it ran, notify's gate has none.
    expect(port.waits).toEqual([60_000, undefined]);
    // While a gate waits the swarm reads `waiting`; the state says so, publishing only shows it.
    expect(port.statuses).toEqual(['running', 'waiting', 'completed']);
    expect(port.calls.map((call) => call.label)).toEqual(['deploy']);
    expect(result.tasks.map((task) => [task.task, task.status, task.reason])).toEqual([
      ['deploy', 'done', undefined],
      ['notify', 'skipped', 'rejected: no'],
    ]);
    expect(result.status).toBe('completed');
  });

  it('starts no instance of a task cancelled while its first ran; its dependents are skipped', async () => {
    const looped = parseSwarm(`
name: cancelled
tasks:
  fan: { loop: { type: repeat, count: 3 }, script: { content: 'true' } }
  after: { depends_on: [fan], script: { content: 'true' } }
`);
    const port = new FakePort();
    const run = createSwarmState(looped);
    port.outcome = (call) => {
      cancelTask(run, 'fan', 'not needed', port.clock);
      return { cancelled: true, reason: run.tasks.cancelReason(call.input.task) ?? '' };
    };
    const result = await finished(drive(run, port, { maxConcurrent: 1 }));
    expect(port.calls.map((call) => call.label)).toEqual(['fan#0']);
    expect(result.tasks.map((task) => [task.task, task.status, task.reason])).toEqual([
      ['fan', 'cancelled', 'not needed'],
      ['after', 'skipped', 'dependency fan cancelled'],
    ]);
    expect(result.tasks[0]?.instances).toEqual({ done: 3, total: 3 });
  });

  it('asks the supervisor with every compact payload, and reports its failure beside the outputs', async () => {
    const supervised = parseSwarm(`
name: supervised
agents:
  boss: { model: mock:boss, tools: [spawn_worker] }
tasks:
  a: { script: { content: 'true' } }
  b: { loop: { type: repeat, count: 2 }, script: { content: 'true' } }
supervisor: { agent: boss, question: All good?, evidence_budget_bytes: 4000 }
`);
    const port = new FakePort();
    const answered = await finished(drive(createSwarmState(supervised), port));
    expect(port.supervised[0]?.input).toMatchObject({
      task: 'supervisor',
      workflowId: 'wf-1',
      spawnable: supervised.agents,
      supervisor: {
        question: 'All good?',
        budgetBytes: 4_000,
        compacts: ['out_a', 'out_b#0', 'out_b#1'],
      },
    });
    expect(answered).toMatchObject({ status: 'completed', supervisor: { answer: 'all good' } });
    expect(port.statuses).toEqual(['running', 'supervising', 'completed']);

    const failing = new FakePort();
    failing.answer = { answer: '', evidenceBytes: 0, error: 'unknown model id "mock:boss"' };
    const failed = await finished(drive(createSwarmState(supervised), failing));
    expect(failed).toMatchObject({ status: 'failed', metrics: { failedCount: 0 } });
    expect(failed.outputs.b).toEqual(['out_b#0', 'out_b#1']);
  });

  it("tells the context planner each loop's ok count and manifest, so a join's context names the rest", async () => {
    const wide = parseSwarm(`
name: wide
tasks:
  fan: { script: { content: 'true' }, loop: { type: repeat, count: 100 } }
  join: { depends_on: [fan], script: { content: 'true' } }
`);
    const port = new FakePort();
    await finished(drive(createSwarmState(wide), port));
    const joinPlan = port.planned.find((input) => input.tasks.includes('join'));
    const manifest = [...port.parts].find(([, part]) => part.part === 'manifest')?.[0];
    expect(manifest).toBeDefined();
    expect(joinPlan?.loops).toEqual({ fan: { ok: 100, manifest } });
    // The 100 out ids are not listed inline: the join's IN_REFS come through the manifest.
    expect(port.calls.find((call) => call.label === 'join')?.input.inManifests).toEqual([manifest]);
    // The pool keeps the loop's newest 10: the real planner names the other 90 by the manifest.
    expect(joinPlan?.pool.entries.filter((entry) => entry.task === 'fan')).toHaveLength(10);
    const plan = planContext(joinPlan as PlanContextInput).join;
    expect(plan?.loops).toEqual([{ task: 'fan', shown: 10, total: 100, manifest }]);
  });

  it('gives the supervisor the manifest of a loop its compacts show only a few instances of', async () => {
    const supervised = parseSwarm(`
name: supervised
agents:
  boss: { model: mock:boss }
tasks:
  small: { loop: { type: repeat, count: 2 }, script: { content: 'true' } }
  fan: { loop: { type: repeat, count: 100 }, script: { content: 'true' } }
supervisor: { agent: boss, question: All good?, evidence_budget_bytes: 4000 }
`);
    const port = new FakePort();
    await finished(drive(createSwarmState(supervised), port));
    const manifests = new Map(
      [...port.parts]
        .filter(([, part]) => part.part === 'manifest')
        .map(([outId, part]) => [part.task, outId] as const),
    );
    const input = port.supervised[0]?.input;
    // small lists its 2 out ids inline, shown whole; fan shows 3 compacts and names its manifest.
    expect(input?.inManifests).toEqual([manifests.get('fan')]);
    expect(input?.supervisor?.compacts.at(-1)).toBe(
      `fan: 100 instances (100 ok, 0 failed, 0 cancelled); 3 shown above; every instance's outputs: manifest ${manifests.get('fan')}`,
    );
  });

  it('runs tasks without a context when choosing one fails, and says so', async () => {
    const port = new FakePort();
    port.planContextFails = true;
    const result = await finished(drive(createSwarmState(chain), port));
    expect(port.calls[1]?.input.context).toBeUndefined();
    expect(port.warnings).toEqual(['context planning failed; tasks run without context']);
    expect(result.status).toBe('completed');
  });

  it('folds a failed subagent: its dependents are skipped and the swarm fails', async () => {
    const port = new FakePort();
    port.outcome = (call) =>
      call.label === 'fetch'
        ? { ...ok('out_err'), status: 'failed', exitCode: 2, stderrTail: 'boom' }
        : ok('x');
    const result = await finished(drive(createSwarmState(chain), port));
    expect(result.tasks.map((task) => [task.task, task.status, task.reason])).toEqual([
      ['fetch', 'failed', 'exit 2 · boom'],
      ['report', 'skipped', 'dependency fetch failed'],
    ]);
    expect(result.status).toBe('failed');
  });
});
