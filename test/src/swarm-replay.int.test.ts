import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { runChainHistory, type StartSwarmOptions } from '@wharf/orchestrator/client';
import { createWharfDataConverter } from '@wharf/orchestrator/node';
import { InMemoryOutputStore } from '@wharf/output-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwarmTestEnv, type SwarmTestEnv, wharfBundle } from './swarm-env.js';

// Histories of real swarm runs, recorded by an earlier release of the workflow and replayed
// against the current one: a change that would break a run in flight (a command added,
// dropped or reordered, a `patched()` moved, carried state read differently) fails here.
// Record new fixtures (with the code whose runs must keep replaying) with
//   WHARF_RECORD_HISTORIES=1 npx vitest run --project int test/src/swarm-replay.int.test.ts
const fixtures = fileURLToPath(new URL('../fixtures/histories/', import.meta.url));

/** One recorded swarm: every run of its continue-as-new chain, first run first. */
interface HistoryFixture {
  scenario: string;
  workflowId: string;
  runs: unknown[];
}

interface Scenario {
  name: string;
  definition: string;
  input?: Record<string, unknown>;
  options?: StartSwarmOptions;
  /** Talks to the run while it goes (signals, updates); resolves once it may be awaited. */
  drive?: (env: SwarmTestEnv, workflowId: string) => Promise<void>;
}

const scenarios: Scenario[] = [
  {
    // Dependencies, a loop, † wiring, a failure with its `||` branch read, an untaken branch
    // skipped, a dependent of a failure skipped: the swarm fails (wharf-swarm-outcome).
    name: 'branches',
    definition: `
name: branches
tasks:
  fetch:
    script: { content: "printf 'alpha\\nbeta\\n'" }
    output: †data.fetch || †data.fetch_error
  count:
    depends_on: [fetch]
    loop: { type: repeat, count: 3 }
    inputs: { source: †data.fetch.outId }
    script: { content: 'echo "instance $WHARF_INSTANCE of $WHARF_INPUTS"' }
    output: †data.counts
  on_fetch_error:
    depends_on: [fetch]
    inputs: { message: †data.fetch_error.message }
    script: { content: echo never }
  report:
    depends_on: [count]
    inputs: { counts: †data.counts }
    script: { content: 'echo "report $WHARF_INPUTS"; echo "refs $IN_REFS"' }
  broken:
    script: { content: 'echo "disk on fire" >&2; exit 3' }
    output: †data.broken || †data.broken_error
  recover:
    depends_on: [broken]
    inputs: { error: †data.broken_error.outId }
    script: { content: 'echo "recovered $WHARF_INPUTS"' }
  after_broken:
    depends_on: [broken]
    script: { content: echo never }
`,
  },
  {
    // The context pool: planContext/pruneContext local activities, a post_task hook, metrics,
    // and a supervisor that cannot answer (no model registered).
    name: 'context-supervisor',
    definition: `
name: contextual
agents:
  boss: { model: mock:nobody-registered-this }
tasks:
  fetch: { script: { content: "printf 'rows: 120\\n'" } }
  lint: { script: { content: echo lint clean } }
  clean:
    depends_on: [fetch]
    script: { content: 'cat "$WHARF_CONTEXT_FILE"' }
  quiet:
    depends_on: [fetch]
    inject_context: false
    script: { content: 'echo quiet' }
  last:
    depends_on: [clean, quiet]
    script: { content: 'echo last' }
hooks:
  post_task:
    - checkpoint_and_prune: { every: 2, strategy: direct_dependencies }
supervisor: { agent: boss, question: All good? }
on_failure: complete
`,
  },
  {
    // An agent task as Wharf ran it before `wharf-durable-agent`: one runSubagent activity (its
    // model is not registered, so it fails at once and the swarm completes without it).
    name: 'agent-task',
    definition: `
name: agentic
agents:
  writer: { model: mock:nobody-registered-this }
tasks:
  fetch: { script: { content: "echo rows" } }
  write: { agent: writer, depends_on: [fetch], prompt: Write it up. }
on_failure: complete
`,
  },
  {
    // A supervisor whose agent has tools runs as a child agent workflow (wharf-durable-supervisor);
    // its model is not registered, so the child fails at its start and the swarm reports why.
    name: 'durable-supervisor',
    definition: `
name: durably-supervised
agents:
  boss: { model: mock:nobody-registered-this, tools: [spawn_worker] }
  checker: { model: mock:nobody-registered-this }
tasks:
  work: { script: { content: echo done } }
supervisor: { agent: boss, question: All good? }
on_failure: complete
`,
  },
  {
    // Continue-as-new between supersteps: every run after the first restores carried state.
    name: 'chain-continue',
    definition: `
name: chain
tasks:
  a: { script: { content: 'echo a' }, output: †data.a }
  b: { depends_on: [a], inputs: { previous: †data.a.outId }, script: { content: 'echo "b $WHARF_INPUTS"' }, output: †data.b }
  c: { depends_on: [b], inputs: { previous: †data.b.outId }, script: { content: 'echo "c $WHARF_INPUTS"' }, output: †data.c }
  d: { depends_on: [c], inputs: { previous: †data.c.outId }, script: { content: 'echo "d $WHARF_INPUTS"' } }
`,
    options: { historyEventLimit: 20 },
  },
  {
    // A loop wider than one run's history bound: the superstep is split, the next run resumes it.
    name: 'split-superstep',
    definition: `
name: wide
tasks:
  fan:
    loop: { type: repeat, count: 24 }
    script: { content: 'echo "instance $WHARF_INSTANCE"' }
    output: †data.fan
  join:
    depends_on: [fan]
    inputs: { fan: †data.fan }
    script: { content: 'echo joined' }
`,
    options: { historyEventLimit: 40, maxConcurrentTasks: 4 },
  },
  {
    // The user's channels (wharf-user-channels): loop instances fold into a topic, a delta and a
    // barrier; a failure writes the topic through its `||` side; a reader gets them as inputs.
    name: 'user-channels',
    definition: `
name: user-channels
channels:
  findings: { type: topic }
  total: { type: delta }
  scanned: { type: barrier, expected: 2 }
tasks:
  scan:
    loop: { type: repeat, count: 2 }
    script: { content: 'echo "finding $WHARF_INSTANCE"' }
    output: †channels.findings && †channels.total && †channels.scanned
  lint:
    script: { content: 'echo "lint failed" >&2; exit 1' }
    output: †data.lint || †channels.findings
  report:
    depends_on: [scan, lint]
    inputs: { findings: †channels.findings, total: †channels.total, scanned: †channels.scanned }
    script: { content: 'echo "report $WHARF_INPUTS"' }
on_failure: complete
`,
  },
  {
    // limits.cleanup_strategy (wharf-cleanup-strategy): the pool is trimmed after every fold.
    name: 'context-cleanup',
    definition: `
name: cleanup
limits:
  cleanup_strategy: { type: most_recent, keep_count: 2 }
tasks:
  fan:
    loop: { type: repeat, count: 4 }
    script: { content: 'echo "part $WHARF_INSTANCE"' }
  join:
    depends_on: [fan]
    script: { content: 'cat "$WHARF_CONTEXT_FILE"' }
`,
  },
  {
    // A task waits for an input added by signal; a running task is cancelled by update.
    name: 'signal-cancel',
    definition: `
name: gated
tasks:
  greet:
    inputs: { who: †input.who }
    script: { content: 'echo "hello $WHARF_INPUTS"' }
  slow: { script: { content: "sleep 60" } }
  after: { depends_on: [slow], script: { content: "echo never" } }
`,
    options: { waitForInputsMs: 60_000 },
    async drive(env, workflowId) {
      for (let attempt = 0; attempt < 100; attempt++) {
        const progress = await env.wharf.progress(workflowId);
        const slow = progress.tasks.find((task) => task.task === 'slow');
        const greet = progress.tasks.find((task) => task.task === 'greet');
        if (slow?.status === 'running' && greet?.status === 'waiting') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await env.wharf.cancelTask(workflowId, 'slow', 'not needed');
      await env.wharf.addInput(workflowId, 'who', 'wharf');
    },
  },
  {
    // Control flow (wharf-control-flow): `when:` both ways, a map loop under max_concurrency, an
    // approval gate answered by update (the pendingApprovals memo) and one approved by its timeout.
    name: 'control-flow',
    definition: `
name: flow
tasks:
  list:
    script: { content: "printf 'alpha\\nbeta\\ngamma\\n'" }
    output: †data.list
  each:
    depends_on: [list]
    when: †data.list.exitCode == 0
    loop: { type: map, over: †data.list.preview, max_concurrency: 2 }
    script: { content: 'echo "item $WHARF_INSTANCE"' }
    output: †data.each
  hold:
    depends_on: [list]
    when: †data.list.exitCode != 0
    script: { content: echo never }
  deploy:
    depends_on: [each]
    approval: { prompt: Ship it? }
    script: { content: echo shipped }
  cleanup:
    depends_on: [each]
    approval: { timeout: 1s, on_timeout: approve }
    script: { content: echo cleaned }
  announce:
    depends_on: [deploy]
    script: { content: echo announced }
`,
    async drive(env, workflowId) {
      for (let attempt = 0; attempt < 300; attempt++) {
        const progress = await env.wharf.progress(workflowId).catch(() => undefined);
        const deploy = progress?.tasks.find((task) => task.task === 'deploy');
        if (deploy?.approval?.requestedAt !== undefined) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await env.wharf.approveTask(workflowId, 'deploy', { approve: true, comment: 'ship it', by: 'ana' });
    },
  },
];

describe.runIf(process.env.WHARF_RECORD_HISTORIES === '1')('record swarm histories', () => {
  let env: SwarmTestEnv;
  beforeAll(async () => {
    env = await createSwarmTestEnv('swarm-replay-record');
    await mkdir(fixtures, { recursive: true });
  });
  afterAll(async () => {
    await env?.close();
  });

  it.each(scenarios)('records $name', async (scenario) => {
    const { workflowId, firstExecutionRunId } = await env.wharf.startSwarm(
      scenario.definition,
      scenario.input ?? {},
      { workflowId: `replay-${scenario.name}`, ...scenario.options },
    );
    await env.withWorker(async () => {
      await scenario.drive?.(env, workflowId);
      return env.wharf.result(workflowId);
    });
    const runs = await runChainHistory(env.temporal.client, workflowId, firstExecutionRunId);
    const histories = await Promise.all(
      runs.map(async (run) =>
        JSON.parse(
          historyToJSON(await env.temporal.client.workflow.getHandle(workflowId, run.runId).fetchHistory()),
        ),
      ),
    );
    const fixture: HistoryFixture = { scenario: scenario.name, workflowId, runs: histories };
    await writeFile(join(fixtures, `${scenario.name}.json`), `${JSON.stringify(fixture, null, 1)}\n`);
  });
});

describe('recorded swarm histories replay against the current workflow', () => {
  const files = readdirSync(fixtures).filter((file) => file.endsWith('.json'));
  beforeAll(() => {
    try {
      Runtime.install({ logger: new DefaultLogger('WARN') });
    } catch {
      // A runtime already exists in this process; keep it.
    }
  });

  it('has fixtures for every scenario', () => {
    expect(files.map((file) => file.replace(/\.json$/, '')).sort()).toEqual(
      scenarios.map((scenario) => scenario.name).sort(),
    );
  });

  it.each(files)('%s replays', async (file) => {
    const fixture = JSON.parse(readFileSync(join(fixtures, file), 'utf8')) as HistoryFixture;
    expect(fixture.runs.length).toBeGreaterThan(0);
    // The recorded payloads are all inline: a store is needed only to build the converter.
    const dataConverter = createWharfDataConverter({ store: new InMemoryOutputStore() });
    for (const run of fixture.runs) {
      await Worker.runReplayHistory(
        { workflowBundle: await wharfBundle(), dataConverter },
        historyFromJSON(run),
        fixture.workflowId,
      );
    }
  });
});
