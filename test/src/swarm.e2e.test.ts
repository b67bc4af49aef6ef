import { parseSwarm, SwarmDefinitionError } from '@wharf/orchestrator';
import { createModelRegistry } from '@wharf/orchestrator/node';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';

const diamond = `
name: diamond
tasks:
  fetch:
    description: list three names
    script: { content: "printf 'alpha\\nbeta\\ngamma\\n'" }
    output: †data.fetch
  count:
    depends_on: [fetch]
    loop: { type: repeat, count: 3 }
    inputs: { source: †data.fetch.outId }
    script: { content: 'echo "instance $WHARF_INSTANCE of $WHARF_INPUTS"' }
    output: †data.counts
  size:
    depends_on: [fetch]
    script: { content: 'head -c 300000 /dev/zero | tr "\\000" "x"; echo' }
    output: †data.size
  report:
    depends_on: [count, size]
    inputs: { counts: †data.counts, size: †data.size.bytes }
    script: { content: 'echo "report $WHARF_INPUTS"; echo "refs $IN_REFS"' }
    output: †data.report
  broken:
    script: { content: 'echo "about to fail"; echo "disk on fire" >&2; exit 3' }
    output: †data.broken || †data.broken_error
  after_broken:
    depends_on: [broken]
    script: { content: echo never }
`;

async function bodyOf(env: SwarmTestEnv, outId: string): Promise<string> {
  return Buffer.from((await env.store.get({ outId })).body).toString('utf8');
}

describe('swarmWorkflow on a real Temporal server', () => {
  let env: SwarmTestEnv;
  beforeAll(async () => {
    env = await createSwarmTestEnv('swarm');
  });
  afterAll(async () => {
    await env?.close();
  });

  it('runs a diamond DAG with a looped task and † inputs; bodies live in the store, not in history', async () => {
    const { workflowId } = await env.wharf.startSwarm(diamond);
    const { result, progress, state } = await env.withWorker(async () => {
      const done = await env.wharf.result(workflowId);
      // Queries are answered by a worker, also after completion.
      return {
        result: done,
        progress: await env.wharf.progress(workflowId),
        state: await env.wharf.state(workflowId),
      };
    });
    const byTask = Object.fromEntries(result.tasks.map((task) => [task.task, task]));

    expect(result.status).toBe('failed');
    // The run itself ends failed (Web UI, visibility); wharf.result still returned its result.
    const description = await env.temporal.client.workflow.getHandle(workflowId).describe();
    expect(description.status.name).toBe('FAILED');
    expect(byTask.fetch?.status).toBe('done');
    expect(byTask.count).toMatchObject({ status: 'done', instances: { done: 3, total: 3 } });
    expect(byTask.report?.status).toBe('done');
    expect(byTask.broken?.status).toBe('failed');
    expect(byTask.broken?.reason).toContain('exit 3');
    expect(byTask.broken?.reason).toContain('disk on fire');
    expect(byTask.after_broken).toMatchObject({ status: 'skipped', reason: 'dependency broken failed' });

    // Byte-exact bodies in the store.
    const fetchId = result.outputs.fetch?.[0] as string;
    expect(await bodyOf(env, fetchId)).toBe('alpha\nbeta\ngamma\n');
    const sizeBody = await bodyOf(env, result.outputs.size?.[0] as string);
    expect(sizeBody).toBe(`${'x'.repeat(300_000)}\n`);

    // Loop instances each ran once, saw their index and the † input.
    const countBodies = await Promise.all((result.outputs.count ?? []).map((outId) => bodyOf(env, outId)));
    expect(countBodies).toHaveLength(3);
    for (const instance of [0, 1, 2]) {
      expect(
        countBodies.some((body) => body.startsWith(`instance ${instance} of {"source":"${fetchId}"}`)),
      ).toBe(true);
    }

    // The report saw the pushed instance results and the size, and got its IN_REFS.
    const report = await bodyOf(env, result.outputs.report?.[0] as string);
    expect(report).toContain('"size":300001');
    const counts = JSON.parse(report.split('\n')[0]?.replace(/^report /, '') ?? '{}') as {
      counts: unknown[];
    };
    expect(counts.counts).toHaveLength(3);
    for (const outId of [...(result.outputs.count ?? []), result.outputs.size?.[0]]) {
      expect(report).toContain(outId as string);
    }

    // History carries refs and compact payloads only.
    const history = await env.temporal.client.workflow.getHandle(workflowId).fetchHistory();
    const historyText = JSON.stringify(history);
    // At most a 400-byte preview of an output travels; a 300 KB body never does (plain or base64).
    expect(historyText).not.toMatch(/x{450}/);
    expect(historyText).not.toContain('eHh4'.repeat(150));
    expect(historyText.length).toBeLessThan(120_000);
    // Each subagent's activity carries its event group (grouped under its label in the Web UI).
    const scheduled = (history.events ?? []).filter((event) => event.activityTaskScheduledEventAttributes);
    expect(scheduled).toHaveLength(7);
    const groups = scheduled.map(
      (event) =>
        (event as { eventGroupMarkers?: { label?: { id?: string } }[] }).eventGroupMarkers?.[0]?.label?.id,
    );
    expect(groups.sort()).toEqual(
      ['broken', 'count#0', 'count#1', 'count#2', 'fetch', 'report', 'size'].map(
        (label) => `subagent:${label}`,
      ),
    );
    // …and a one-line summary of what ran.
    expect(scheduled.every((event) => event.userMetadata?.summary?.data)).toBe(true);

    expect(progress.status).toBe('failed');
    expect(progress.tasks.map((task) => task.task)).toEqual([
      'fetch',
      'count',
      'size',
      'report',
      'broken',
      'after_broken',
    ]);
    expect(JSON.stringify(state)).toContain('results:count');
  });

  it('skips the reader of an untaken `||` branch; the swarm completes and `||` reads the side written', async () => {
    const { workflowId } = await env.wharf.startSwarm(`
name: branches
tasks:
  check:
    script: { content: echo healthy }
    output: †data.ok || †data.problem
  on_problem:
    depends_on: [check]
    inputs: { problem: †data.problem.message }
    script: { content: 'echo "handling $WHARF_INPUTS"' }
    output: †data.handled
  after_problem:
    depends_on: [on_problem]
    inputs: { handled: †data.handled.outId }
    script: { content: echo never }
  report:
    depends_on: [check]
    inputs: { source: '†data.problem.outId || †data.ok.outId' }
    script: { content: 'echo "report $WHARF_INPUTS"' }
  probe:
    script: { content: 'echo "disk on fire" >&2; exit 4' }
    output: †data.probe || †data.probe_error
  on_probe_error:
    depends_on: [probe]
    inputs: { error: †data.probe_error.outId, message: †data.probe_error.message }
    script: { content: 'echo "recovered $WHARF_INPUTS"' }
`);
    const { result, progress } = await env.withWorker(async () => ({
      result: await env.wharf.result(workflowId),
      progress: await env.wharf.progress(workflowId),
    }));
    const byTask = Object.fromEntries(result.tasks.map((task) => [task.task, task]));
    expect(byTask.check?.status).toBe('done');
    expect(byTask.on_problem).toMatchObject({
      status: 'skipped',
      reason: 'input †data.problem.message can no longer be written (check done)',
    });
    expect(byTask.after_problem).toMatchObject({
      status: 'skipped',
      reason: 'dependency on_problem skipped',
    });
    // `||` resolved to the side that was written.
    const checkId = result.outputs.check?.[0] as string;
    expect(await bodyOf(env, result.outputs.report?.[0] as string)).toBe(`report {"source":"${checkId}"}\n`);
    // A failure's `||` side carries the same value as a success's: its out id, its message.
    const probeId = result.outputs.probe?.[0] as string;
    expect(byTask.probe?.status).toBe('failed');
    expect(await bodyOf(env, result.outputs.on_probe_error?.[0] as string)).toBe(
      `recovered {"error":"${probeId}","message":"disk on fire\\n"}\n`,
    );
    expect(result.metrics).toMatchObject({ failedCount: 1, skippedCount: 2 });
    expect(progress.tasks.find((task) => task.task === 'on_problem')?.status).toBe('skipped');
  });

  it('completes a swarm whose only unfinished task is an untaken branch', async () => {
    const { workflowId } = await env.wharf.startSwarm(`
name: untaken
tasks:
  check:
    script: { content: echo healthy }
    output: †data.ok || †data.problem
  on_problem:
    depends_on: [check]
    inputs: { problem: †data.problem.outId }
    script: { content: echo never }
`);
    const result = await env.withWorker(() => env.wharf.result(workflowId));
    expect(result.status).toBe('completed');
    expect(result.tasks.map((task) => [task.task, task.status])).toEqual([
      ['check', 'done'],
      ['on_problem', 'skipped'],
    ]);
    expect(result.outputs.on_problem).toEqual([]);
  });

  it('supervises with mounted evidence: the model sees failures first, history does not', async () => {
    const seen: string[] = [];
    const model = new MockLanguageModelV4({
      doGenerate: async (options) => {
        const text = JSON.stringify(options.prompt);
        seen.push(text);
        return {
          content: [
            {
              type: 'text',
              text: text.includes('disk on fire') ? 'The broken task failed: disk on fire.' : 'No evidence.',
            },
          ],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: {
            inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 5, text: 5, reasoning: 0 },
          },
          warnings: [],
        };
      },
    });
    const definition = parseSwarm(`
name: supervised
agents:
  boss: { model: mock:boss }
tasks:
  ok:
    script: { content: 'for i in $(seq 1 2000); do echo "healthy line $i"; done' }
  broken:
    script: { content: 'echo "disk on fire" >&2; exit 2' }
supervisor:
  agent: boss
  question: Which task failed and why?
  evidence_budget_bytes: 4000
`);
    const { workflowId } = await env.wharf.startSwarm(definition);
    const result = await env.withWorker(() => env.wharf.result(workflowId), {
      models: createModelRegistry({ models: { 'mock:boss': model }, env: {} }),
    });
    expect(result.supervisor?.answer).toBe('The broken task failed: disk on fire.');
    expect(result.supervisor?.evidenceBytes).toBeGreaterThan(0);
    const prompt = seen[0] ?? '';
    expect(prompt).toContain('--- Evidence');
    expect(prompt).toContain('disk on fire');
    // 2,000 healthy lines (~38 KB) do not fit a 4,000-byte budget: the middle is cut, with a marker.
    expect(prompt).not.toContain('healthy line 1000');
    expect(prompt).toMatch(/truncated/i);

    const history = JSON.stringify(await env.temporal.client.workflow.getHandle(workflowId).fetchHistory());
    expect(history).not.toContain('healthy line 1000');
    expect(history).not.toContain('--- Evidence');
  });

  it('keeps the swarm result when the supervisor cannot answer', async () => {
    const { workflowId } = await env.wharf.startSwarm(`
name: unsupervised
agents:
  boss: { model: mock:nobody-registered-this }
tasks:
  work: { script: { content: echo done } }
supervisor: { agent: boss, question: All good? }
`);
    const result = await env.withWorker(() => env.wharf.result(workflowId), {
      models: createModelRegistry({ models: {}, env: {} }),
    });
    expect(result.status).toBe('failed');
    expect(result.tasks[0]?.status).toBe('done');
    expect(result.outputs.work).toHaveLength(1);
    expect(result.supervisor?.error).toContain(
      'model id "mock:nobody-registered-this": unknown provider "mock"',
    );
  });

  it('runs an agent task: the model reads its IN_REFS and hands in its output with the emit tool', async () => {
    const usage = {
      inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 5, text: 5, reasoning: 0 },
    };
    const prompts: string[] = [];
    const model = new MockLanguageModelV4({
      doGenerate: async (options) => {
        const seen = JSON.stringify(options.prompt);
        prompts.push(seen);
        const step = prompts.length;
        if (step === 1) {
          const inRef = /IN_REFS \(read with read_input\): (out_[A-Za-z0-9_-]+)/.exec(seen)?.[1] ?? 'missing';
          return {
            content: [
              {
                type: 'tool-call',
                toolCallId: 'c1',
                toolName: 'read_input',
                input: JSON.stringify({ out_id: inRef }),
              },
            ],
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
            usage,
            warnings: [],
          };
        }
        if (step === 2) {
          const names = /alpha.*beta/.test(seen) ? 'alpha, beta' : 'nothing';
          return {
            content: [
              {
                type: 'tool-call',
                toolCallId: 'c2',
                toolName: 'emit',
                input: JSON.stringify({ body: `# Names\n${names}\n`, name: 'names.md' }),
              },
            ],
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
            usage,
            warnings: [],
          };
        }
        return {
          content: [{ type: 'text', text: 'Listed the names.' }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        };
      },
    });
    const { workflowId } = await env.wharf.startSwarm(`
name: agentic
agents:
  writer: { model: mock:writer, system: You write short reports. }
tasks:
  names:
    script: { content: "printf 'alpha\\nbeta\\n'" }
  report:
    depends_on: [names]
    agent: writer
    prompt: List the names you are given.
    inject_context: false
    output: †data.report
`);
    const result = await env.withWorker(() => env.wharf.result(workflowId), {
      models: createModelRegistry({ models: { 'mock:writer': model }, env: {} }),
    });
    expect(result.status).toBe('completed');
    expect(prompts).toHaveLength(3);
    // With inject_context: false the names reach the model only through read_input.
    expect(prompts[0]).not.toContain('alpha');
    expect(prompts[1]).toContain('alpha');
    const reportId = result.outputs.report?.[0] as string;
    expect(Buffer.from((await env.store.get({ outId: reportId })).body).toString()).toBe(
      '# Names\nalpha, beta\n',
    );
    const workers = await env.artifacts.listWorkers({ ownerId: 'default', runId: workflowId });
    const writer = workers.find((worker) => worker.jobId === 'report');
    const calls = await env.artifacts.listToolCalls(writer?.workerId as string);
    expect(calls.map((call) => call.toolName)).toEqual(['read_input', 'emit']);
  });

  it('gives each task the context of earlier outputs it is relevant to, pruned by the post_task hook', async () => {
    const prompts: string[] = [];
    const model = new MockLanguageModelV4({
      doGenerate: async (options) => {
        prompts.push(JSON.stringify(options.prompt));
        const usage = {
          inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 5, text: 5, reasoning: 0 },
        };
        return prompts.length === 1
          ? {
              content: [
                {
                  type: 'tool-call',
                  toolCallId: 'c1',
                  toolName: 'emit',
                  input: JSON.stringify({ body: 'ok' }),
                },
              ],
              finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
              usage,
              warnings: [],
            }
          : {
              content: [{ type: 'text', text: 'done' }],
              finishReason: { unified: 'stop', raw: 'stop' },
              usage,
              warnings: [],
            };
      },
    });
    const { workflowId } = await env.wharf.startSwarm(`
name: contextual
agents:
  writer: { model: mock:writer }
tasks:
  fetch: { script: { content: "printf 'rows: 120\\n'" } }
  lint: { script: { content: echo lint clean } }
  clean:
    depends_on: [fetch]
    script: { content: 'cat "$WHARF_CONTEXT_FILE"' }
  quiet:
    depends_on: [fetch]
    inject_context: false
    script: { content: 'echo "context file: \${WHARF_CONTEXT_FILE:-none}"' }
  summary:
    depends_on: [clean]
    agent: writer
    prompt: Summarise.
    context: { mode: manual, include_tasks: [fetch, lint] }
hooks:
  post_task:
    - checkpoint_and_prune: { every: 4, strategy: direct_dependencies }
`);
    const result = await env.withWorker(() => env.wharf.result(workflowId), {
      models: createModelRegistry({ models: { 'mock:writer': model }, env: {} }),
    });
    expect(result.status).toBe('completed');
    // clean: its dependency first (1.0), then lint, recent (0.3); read from the store by the activity.
    expect(await bodyOf(env, result.outputs.clean?.[0] as string)).toBe(
      [
        '=== RELEVANT CONTEXT ===',
        '',
        'Task: fetch (relevance: 1.00)',
        'rows: 120',
        '',
        '',
        'Task: lint (relevance: 0.30)',
        'lint clean',
        '',
        '',
        '=== END CONTEXT (2 tasks, 21 bytes) ===',
        '',
      ].join('\n'),
    );
    expect(await bodyOf(env, result.outputs.quiet?.[0] as string)).toBe('context file: none\n');
    // After 4 outputs the hook kept only outputs some task depends on (fetch, clean): the
    // summary asked for fetch and lint and got fetch (transitive, 0.8 / 2).
    expect(prompts[0]).toContain('Task: fetch (relevance: 0.40)\\nrows: 120');
    expect(prompts[0]).not.toContain('lint clean');
    expect(prompts[0]).toContain(`fetch=${result.outputs.fetch?.[0]}`);
    expect(result.metrics.context).toMatchObject({ taskCount: 3, externalCount: 3, truncatedCount: 0 });
    expect(result.metrics.context?.lastPrunedAt).toBeTypeOf('number');
  });

  it('continues as new when history grows, carrying channels and context', async () => {
    const chain = ['a', 'b', 'c', 'd', 'e', 'f'];
    const tasks = chain
      .map((name, index) => {
        const previous = chain[index - 1];
        return [
          `  ${name}:`,
          `    script: { content: 'echo "${name} after $WHARF_INPUTS"' }`,
          `    output: †data.${name}`,
          ...(previous === undefined
            ? []
            : [`    depends_on: [${previous}]`, `    inputs: { previous: †data.${previous}.outId }`]),
        ].join('\n');
      })
      .join('\n');
    const { workflowId } = await env.wharf.startSwarm(
      `name: chain\ntasks:\n${tasks}\n`,
      {},
      { historyEventLimit: 20 },
    );
    const result = await env.withWorker(() => env.wharf.result(workflowId));
    expect(result.status).toBe('completed');
    expect(result.metrics.continuedAsNew).toBeGreaterThanOrEqual(1);
    // The context pool came along: every output of the chain is in it.
    expect(result.metrics.context?.taskCount).toBe(6);
    const last = Buffer.from((await env.store.get({ outId: result.outputs.f?.[0] as string })).body).toString(
      'utf8',
    );
    expect(last).toBe(`f after {"previous":"${result.outputs.e?.[0]}"}\n`);
  });

  it('waits for an input added while it runs', async () => {
    const { workflowId } = await env.wharf.startSwarm(
      'name: gated\ntasks:\n  greet:\n    inputs: { who: †input.who }\n    script: { content: \'echo "hello $WHARF_INPUTS"\' }\n',
      {},
      { waitForInputsMs: 60_000 },
    );
    const result = await env.withWorker(async () => {
      for (let attempt = 0; attempt < 50; attempt++) {
        const progress = await env.wharf.progress(workflowId);
        if (progress.tasks[0]?.status === 'waiting') {
          expect(progress.tasks[0].waitingFor).toEqual(['†input.who']);
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await env.wharf.addInput(workflowId, 'who', 'wharf');
      return env.wharf.result(workflowId);
    });
    expect(result.status).toBe('completed');
    const body = Buffer.from(
      (await env.store.get({ outId: result.outputs.greet?.[0] as string })).body,
    ).toString('utf8');
    expect(body).toBe('hello {"who":"wharf"}\n');
  });

  it('cancels a running task; its dependents are skipped, the rest completes', async () => {
    const { workflowId } = await env.wharf.startSwarm(
      [
        'name: cancellable',
        'tasks:',
        '  slow: { script: { content: "sleep 60" } }',
        '  after: { depends_on: [slow], script: { content: "echo never" } }',
        '  quick: { script: { content: "echo quick" } }',
      ].join('\n'),
    );
    const started = Date.now();
    const result = await env.withWorker(async () => {
      for (let attempt = 0; attempt < 100; attempt++) {
        const progress = await env.wharf.progress(workflowId);
        if (progress.tasks.find((task) => task.task === 'slow')?.status === 'running') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await expect(env.wharf.cancelTask(workflowId, 'ghost')).rejects.toThrow(/unknown task "ghost"/);
      expect(await env.wharf.cancelTask(workflowId, 'slow', 'not needed')).toEqual({
        cancelled: true,
        status: 'cancelled',
      });
      return env.wharf.result(workflowId);
    });
    expect(Date.now() - started).toBeLessThan(30_000);
    const byTask = Object.fromEntries(result.tasks.map((task) => [task.task, task]));
    expect(byTask.slow).toMatchObject({ status: 'cancelled', reason: 'not needed' });
    expect(byTask.after).toMatchObject({ status: 'skipped', reason: 'dependency slow cancelled' });
    expect(byTask.quick?.status).toBe('done');
  });

  it('rejects a bad definition before anything starts', () => {
    let caught: unknown;
    try {
      parseSwarm('name: bad\ntasks:\n  a: { script: { content: echo }, depends_on: [ghost] }\n');
    } catch (error) {
      caught = error;
    }
    expect(SwarmDefinitionError.isInstance(caught)).toBe(true);
    expect((caught as SwarmDefinitionError).issues[0]).toMatchObject({
      path: 'tasks.a.depends_on[0]',
      line: 3,
    });
  });
});
