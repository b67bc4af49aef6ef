import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SwarmResult } from '@wharf/orchestrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRefsScript } from './count-refs-script.js';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';
import { runWharf } from './wharf-cli.js';

// `wharf rerun <run> --from <task>` as WharfClient.rerun: a swarm fails at its report; once the
// cause is fixed, a re-run from the report reads the finished run with no worker running, runs
// the report and what follows it, and reuses everything else: no script runs twice (each
// appends to a log), and the reused outputs, random bytes, read back byte for byte.

describe('a re-run from a task of a finished run', () => {
  let env: SwarmTestEnv;
  beforeAll(async () => {
    env = await createSwarmTestEnv('rerun');
  });
  afterAll(async () => {
    await env?.close();
  });

  it('runs the task and what depends on it again, and reuses the rest exactly', async () => {
    const log = join(env.dir, 'side-effects.log');
    const fixed = join(env.dir, 'fixed');
    const seen = join(env.dir, 'report-inputs');
    const yaml = `
name: rerun-e2e
channels:
  findings: { type: topic }
tasks:
  list:
    script: { content: 'echo list >> ${log}; head -c 24 /dev/urandom | base64; printf "alpha\\nbeta\\n"' }
    output: †data.list
  each:
    depends_on: [list]
    loop: { type: map, over: †data.list.preview }
    script: { content: 'echo "each $WHARF_INSTANCE" >> ${log}; head -c 3000 /dev/urandom | base64' }
    output: †channels.findings
  audit:
    script: { content: 'echo audit >> ${log}; head -c 200 /dev/urandom | base64' }
    output: †data.audit
  report:
    depends_on: [each, audit]
    inputs: { findings: †channels.findings, audit: †data.audit.outId, list: †data.list.preview }
    script:
      content: 'echo report >> ${log}; printf "%s" "$WHARF_INPUTS" >> ${seen}; echo >> ${seen}; test -f ${fixed} || { echo "not fixed yet" >&2; exit 1; }; echo reported'
  publish:
    depends_on: [report]
    script: { content: 'echo publish >> ${log}; echo published' }
`;
    const { workflowId } = await env.wharf.startSwarm(yaml);
    const first = await env.withWorker(() => env.wharf.result(workflowId));
    expect(first.status).toBe('failed');
    expect(Object.fromEntries(first.tasks.map((task) => [task.task, task.status]))).toEqual({
      list: 'done',
      each: 'done',
      audit: 'done',
      report: 'failed',
      publish: 'skipped',
    });
    const ranFirst = (await readFile(log, 'utf8')).trim().split('\n').sort();
    expect(ranFirst).toEqual(['audit', 'each 0', 'each 1', 'each 2', 'list', 'report']);
    const reusedIds = ['list', 'each', 'audit'].flatMap((task) => first.outputs[task] ?? []);
    expect(reusedIds).toHaveLength(5); // the stdout of each of the five instances
    const bodies = await Promise.all(reusedIds.map(async (outId) => (await env.store.get({ outId })).body));

    // The cause is fixed; no worker runs while the re-run is read and started.
    await writeFile(fixed, '');
    const rerun = await env.wharf.rerun(workflowId, { from: 'report' });
    expect(rerun.rerunOf).toBe(workflowId);
    expect(rerun.plan.reused).toEqual(['list', 'each', 'audit']);
    expect(rerun.plan.rerun).toEqual([
      { task: 'report', reason: 'named by --from' },
      { task: 'publish', reason: 'depends on report' },
    ]);

    const second = await env.withWorker(() => env.wharf.result(rerun.workflowId));
    expect(second.status).toBe('completed');
    // Only the report and what depends on it ran again.
    const ranSecond = (await readFile(log, 'utf8')).trim().split('\n').slice(ranFirst.length);
    expect(ranSecond).toEqual(['report', 'publish']);
    // The reused tasks hold the first run's outputs, byte for byte.
    for (const task of ['list', 'each', 'audit']) {
      expect(second.outputs[task]).toEqual(first.outputs[task]);
      expect(second.tasks.find((entry) => entry.task === task)?.reused).toBe(task === 'each' ? 3 : 1);
    }
    for (const [index, outId] of reusedIds.entries())
      expect(Buffer.compare((await env.store.get({ outId })).body, bodies[index] as Uint8Array)).toBe(0);
    // The report read exactly what it read the first time: the user channel and the data restored as folded.
    const [before, after] = (await readFile(seen, 'utf8')).trim().split('\n');
    expect(JSON.parse(after ?? '')).toEqual(JSON.parse(before ?? ''));
    expect((JSON.parse(after ?? '') as { findings: unknown[] }).findings).toHaveLength(3);

    // The re-run names the run it came from: memo and WharfRerunOf (what the Web UI lists it by).
    const description = await env.wharf.client.workflow.getHandle(rerun.workflowId).describe();
    expect(description.memo?.rerunOf).toEqual({ workflowId, from: 'report', readsFrom: [workflowId] });
    const descendants: string[] = [];
    for (let attempt = 0; attempt < 100 && descendants.length === 0; attempt++) {
      for await (const execution of env.wharf.client.workflow.list({ query: `WharfRerunOf="${workflowId}"` }))
        descendants.push(execution.workflowId);
      if (descendants.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(descendants).toEqual([rerun.workflowId]);
  });

  it('reuses a wide map whole: its manifest, not a result per instance, and the join reads every ref again', async () => {
    const items = 200;
    const log = join(env.dir, 'wide.log');
    const fixed = join(env.dir, 'wide-fixed');
    const yaml = `
name: rerun-wide
tasks:
  list: { script: { content: 'seq 1 ${items}' }, output: †data.list }
  fan:
    depends_on: [list]
    loop: { type: map, over: †data.list }
    script: { content: 'echo "fan $WHARF_INSTANCE" >> ${log}; echo "item $WHARF_INSTANCE"' }
    output: †data.each
  join:
    depends_on: [fan]
    script: { content: ${JSON.stringify(`test -f ${fixed} || exit 1; ${countRefsScript}`)} }
`;
    const { workflowId } = await env.wharf.startSwarm(yaml);
    const first = await env.withWorker(() => env.wharf.result(workflowId));
    expect(first.tasks.map((task) => task.status)).toEqual(['done', 'done', 'failed']);
    expect((await readFile(log, 'utf8')).trim().split('\n')).toHaveLength(items);

    await writeFile(fixed, '');
    const rerun = await env.wharf.rerun(workflowId, { from: 'join' });
    expect(rerun.plan.reused).toEqual(['list', 'fan']);
    // The re-run starts with the loop's summary, manifest and the ten outputs the run's pool held
    // for it: about a kilobyte, not one result per item.
    const reused = JSON.stringify(rerun.plan.reuse.fan);
    expect(reused).toContain(first.manifests?.fan as string);
    expect(reused.length).toBeLessThan(1_200);

    const second = await env.withWorker(() => env.wharf.result(rerun.workflowId));
    expect(second.status).toBe('completed');
    // No instance ran again; the join, run with the first run's manifest, read all its refs.
    expect((await readFile(log, 'utf8')).trim().split('\n')).toHaveLength(items);
    expect(second.manifests?.fan).toBe(first.manifests?.fan);
    expect(second.tasks.find((task) => task.task === 'fan')).toMatchObject({
      status: 'done',
      instances: { done: items, total: items },
      reused: items,
    });
    const joined = await env.store.get({ outId: second.outputs.join?.[0] as string });
    expect(Number(Buffer.from(joined.body).toString('utf8').trim())).toBe(items);
  });

  it("a task run again after a wide loop reused whole gets the run's context: the loop's newest pooled outputs too", async () => {
    const width = 70;
    const contexts = join(env.dir, 'wide-contexts.log');
    const yaml = `
name: rerun-wide-context
tasks:
  base: { script: { content: 'echo base-output' } }
  fan:
    depends_on: [base]
    loop: { type: repeat, count: ${width} }
    script: { content: 'echo "fan-output $WHARF_INSTANCE"' }
  report:
    depends_on: [base, fan]
    script: { content: 'cat "$WHARF_CONTEXT_FILE" >> ${contexts}; echo "=====" >> ${contexts}; echo reported' }
`;
    const { workflowId } = await env.wharf.startSwarm(yaml);
    const first = await env.withWorker(() => env.wharf.result(workflowId));
    expect(first.status).toBe('completed');
    const fan = first.tasks.find((task) => task.task === 'fan');
    expect(fan?.pooled).toHaveLength(10);

    const rerun = await env.wharf.rerun(workflowId, { from: 'report' });
    expect(rerun.plan.reused).toEqual(['base', 'fan']);
    // Whole: its summary, manifest and the ten outputs the pool held, not one result per instance.
    const reused = rerun.plan.reuse.fan;
    expect(Array.isArray(reused)).toBe(false);
    expect(JSON.stringify(reused).length).toBeLessThan(1_200);
    const second = await env.withWorker(() => env.wharf.result(rerun.workflowId));
    expect(second.status).toBe('completed');

    // The same context, byte for byte: the loop's newest outputs among its entries, same order.
    const [before = '', after = ''] = (await readFile(contexts, 'utf8')).split('=====\n');
    expect(before).toContain(`Task: fan#${width - 1} `);
    expect(before).toContain(`fan-output ${width - 1}`);
    expect(after).toBe(before);
  });

  it('refuses a run that has not ended, or ended without a result', async () => {
    const { workflowId } = await env.wharf.startSwarm(`
name: rerun-refusals
tasks:
  slow: { script: { content: 'sleep 30' } }
`);
    await expect(env.wharf.rerun(workflowId, { from: 'slow' })).rejects.toThrow(
      `${workflowId} is still running: re-run it once it has ended (or cancel it first)`,
    );
    await env.wharf.client.workflow.getHandle(workflowId).terminate('test');
    await expect(env.wharf.rerun(workflowId, { from: 'slow' })).rejects.toThrow(
      /ended terminated without a swarm result/,
    );
  });

  it('`wharf rerun` with a new input, with and without --from: the CLI prints what it reuses and runs again, and runs only that', async () => {
    const log = join(env.dir, 'cli.log');
    await writeFile(
      join(env.dir, 'greet.yaml'),
      `name: rerun-cli
tasks:
  fetch: { script: { content: 'echo fetch >> ${log}; echo fetched' }, output: †data.fetch }
  greet:
    depends_on: [fetch]
    inputs: { who: †input.who, fetched: †data.fetch.outId }
    script: { content: 'printf "greet %s\\n" "$WHARF_INPUTS" >> ${log}; echo hello' }
`,
    );
    const common = ['--address', env.temporal.address, '--data-dir', 'cli-data', '--json'];
    const first = await runWharf(['run', 'greet.yaml', '-i', 'who=ana', ...common], env.dir);
    expect(first.code, first.stderr).toBe(0);
    const { workflowId, outputs } = JSON.parse(first.stdout) as SwarmResult & { workflowId: string };

    // From the last task with a new input: the fetch is reused, the greeting reads the new name.
    const renamed = await runWharf(
      ['rerun', workflowId, '--from', 'greet', '-i', 'who=bo', ...common],
      env.dir,
    );
    expect(renamed.code, renamed.stderr).toBe(0);
    const third = JSON.parse(renamed.stdout) as SwarmResult & { rerunOf: string; plan: { reused: string[] } };
    expect(third).toMatchObject({ rerunOf: workflowId, status: 'completed', plan: { reused: ['fetch'] } });
    expect(third.outputs.fetch).toEqual(outputs.fetch);
    expect(renamed.stderr).toContain('wharf: reuses fetch');
    expect(renamed.stderr).toContain('wharf: runs again greet (named by --from)');
    const ran = (await readFile(log, 'utf8')).trim().split('\n');
    expect(ran.map((line) => line.split(' ')[0])).toEqual(['fetch', 'greet', 'greet']);
    expect(JSON.parse(ran[2]?.slice('greet '.length) ?? '')).toEqual({
      who: 'bo',
      fetched: outputs.fetch?.[0],
    });

    // An unknown task is refused before the worker starts: its store (here one that cannot open) is never reached.
    const unknown = await runWharf(['rerun', workflowId, '--from', 'gret', ...common], env.dir, {
      env: { ...process.env, WHARF_STORE: 'postgres://wharf@127.0.0.1:1/none' },
    });
    expect(unknown.code, unknown.stderr).toBe(2);
    expect(unknown.stderr).toContain(
      'cannot re-run from "gret": the swarm has no such task; tasks: fetch, greet',
    );

    // With no server answering, the task names this data directory recorded at the run refuse it.
    const offline = await runWharf(
      ['rerun', workflowId, '--from', 'gret', '--address', '127.0.0.1:1', '--data-dir', 'cli-data'],
      env.dir,
    );
    expect(offline.code, offline.stderr).toBe(2);
    expect(offline.stderr).toContain(
      'cannot re-run from "gret": the swarm has no such task; tasks: fetch, greet',
    );

    // A new input alone: the task reading it runs again, the fetch is reused.
    const inputOnly = await runWharf(['rerun', workflowId, '-i', 'who=cy', ...common], env.dir);
    expect(inputOnly.code, inputOnly.stderr).toBe(0);
    const fourth = JSON.parse(inputOnly.stdout) as SwarmResult & {
      plan: { reused: string[]; rerun: { task: string; reason: string }[] };
    };
    expect(fourth.plan).toMatchObject({
      reused: ['fetch'],
      rerun: [{ task: 'greet', reason: 'it reads †input.who, which changed' }],
    });
    expect(fourth.outputs.fetch).toEqual(outputs.fetch);
    expect(inputOnly.stderr).toContain(`a re-run of ${workflowId} for what changed`);
    const ranAgain = (await readFile(log, 'utf8')).trim().split('\n');
    expect(ranAgain.map((line) => line.split(' ')[0])).toEqual(['fetch', 'greet', 'greet', 'greet']);
    expect(JSON.parse(ranAgain[3]?.slice('greet '.length) ?? '')).toMatchObject({ who: 'cy' });

    // An input no task reads, or one that did not change: nothing would run again.
    const same = await runWharf(['rerun', workflowId, '-i', 'who=ana', ...common], env.dir);
    expect(same.code).toBe(2);
    expect(same.stderr).toContain('nothing to re-run: no input changed');
  });

  it('`wharf rerun --from`: the task run again gets the context the run gave it, and the supervisor and `wharf evidence` see the reused tasks', async () => {
    // z_next ends after a_base: in the run its output ranks first among equally relevant ones.
    // Were the reused outputs pooled as if all had ended at once, a_base would rank first.
    await writeFile(
      join(env.dir, 'fidelity.yaml'),
      `name: rerun-fidelity
agents:
  lead: { model: echo, system: You review. }
tasks:
  a_base: { script: { content: 'echo base-output' } }
  z_next: { depends_on: [a_base], script: { content: 'echo next-output' } }
  report:
    depends_on: [a_base, z_next]
    script: { content: 'cat "$WHARF_CONTEXT_FILE" >> contexts.log; echo "=====" >> contexts.log; echo reported' }
supervisor: { agent: lead, question: Is it fine?, evidence_budget_bytes: 16000 }
`,
    );
    const common = ['--address', env.temporal.address, '--data-dir', 'fidelity-data', '--json'];
    const first = await runWharf(['run', 'fidelity.yaml', '--model', 'echo', ...common], env.dir);
    expect(first.code, first.stderr).toBe(0);
    const run = JSON.parse(first.stdout) as SwarmResult & { workflowId: string };
    const again = await runWharf(['rerun', run.workflowId, '--from', 'report', ...common], env.dir);
    expect(again.code, again.stderr).toBe(0);
    const rerun = JSON.parse(again.stdout) as SwarmResult & { workflowId: string };
    expect(rerun.outputs.a_base).toEqual(run.outputs.a_base);

    // The same context, byte for byte: same entries, same order, same bytes.
    const [before = '', after = ''] = (await readFile(join(env.dir, 'contexts.log'), 'utf8')).split(
      '=====\n',
    );
    expect(before.indexOf('Task: z_next')).toBeLessThan(before.indexOf('Task: a_base'));
    expect(after).toBe(before);

    // The supervisor mounts the evidence of every task, reused or not, as the run's did.
    const mounted = (answer: string | undefined) => /evidence mounted for (\d+)/.exec(answer ?? '')?.[1];
    expect(rerun.supervisor?.answer).not.toContain('refused');
    expect(mounted(rerun.supervisor?.answer)).toBe('3');
    expect(mounted(rerun.supervisor?.answer)).toBe(mounted(run.supervisor?.answer));

    // `wharf evidence <re-run>` lists the reused tasks too, marked reused.
    const evidence = await runWharf(
      [
        'evidence',
        rerun.workflowId,
        '--address',
        env.temporal.address,
        '--data-dir',
        'fidelity-data',
        '--json',
      ],
      env.dir,
    );
    expect(evidence.code, evidence.stderr).toBe(0);
    const listed = JSON.parse(evidence.stdout) as {
      evidence: Record<string, string>;
      reused?: Record<string, string>;
    };
    expect(Object.keys(listed.evidence).sort()).toEqual(['a_base', 'report', 'supervisor', 'z_next']);
    expect(listed.reused).toEqual({ a_base: run.workflowId, z_next: run.workflowId });
    const text = await runWharf(
      ['evidence', rerun.workflowId, '--address', env.temporal.address, '--data-dir', 'fidelity-data'],
      env.dir,
    );
    expect(text.stdout).toContain(`(reused: a_base ran in ${run.workflowId})`);
  });
});
