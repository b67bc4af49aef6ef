import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { InMemoryArtifactStore } from '@wharf/evidence';
import { createIntakeServer, InMemoryOutputStore, SqliteOutputStore } from '@wharf/output-store';
import type { SubagentInput, SubagentResult } from '@wharf/swarm';
import { validateSwarm } from '@wharf/swarm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createActivities } from '../worker/create-activities.js';
import { spawnCredentials } from './spawn-credentials.js';
import { WorkerSandbox } from './worker-sandbox.js';

function scriptInput(content: string, cwd?: string): SubagentInput {
  const script = cwd === undefined ? { content } : { content, cwd };
  const definition = validateSwarm({ name: 's', tasks: { build: { script } } });
  return {
    swarm: 's',
    ownerId: 'team',
    workflowId: 'wf-1',
    task: 'build',
    instance: 0,
    definition: definition.tasks.build as SubagentInput['definition'],
    inputs: { target: 'main' },
    inRefs: ['out_previous000000'],
  };
}

const identity = {
  activityId: '7',
  activityType: 'runSubagent',
  workflowExecution: { workflowId: 'wf-1', runId: 'run-a' },
};

describe('runSubagent (script) in an activity context', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-activity-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('EMITs full stdout and stderr, records the process, heartbeats bytes, and a retry reuses the refs', async () => {
    const store = new InMemoryOutputStore();
    const artifacts = new InMemoryArtifactStore({ spoolDirectories: [join(dir, 'work')] });
    const activities = createActivities({
      store,
      artifacts,
      workDir: join(dir, 'work'),
      env: { PATH: process.env.PATH },
    });
    const counter = join(dir, 'runs');
    // Its work directory is where a sandboxed script may write.
    const input = {
      ...scriptInput(
        `echo run >> ${counter}; echo "inputs=$WHARF_INPUTS refs=$IN_REFS"; seq 1 200000; sleep 1.2; echo "disk on fire" >&2; exit 3`,
      ),
      workdir: dir,
    };

    const heartbeats: unknown[] = [];
    const first = new MockActivityEnvironment({ ...identity, attempt: 1 });
    first.on('heartbeat', (details: unknown) => heartbeats.push(details));
    const result: SubagentResult = await first.run(activities.runSubagent, input);

    expect(result).toMatchObject({ status: 'failed', exitCode: 3 });
    expect(result.outputs).toHaveLength(2);
    const stdout = Buffer.from((await store.get(result.outputs[0] as { outId: string })).body).toString();
    expect(stdout.startsWith('inputs={"target":"main"} refs=out_previous000000\n1\n2\n')).toBe(true);
    expect(stdout.endsWith('199999\n200000\n')).toBe(true);
    const stderr = Buffer.from((await store.get(result.outputs[1] as { outId: string })).body).toString();
    expect(stderr).toBe('disk on fire\n');
    expect(result.bytes).toBe(Buffer.byteLength(stdout) + Buffer.byteLength(stderr));
    expect(result.stderrTail).toContain('disk on fire');
    expect(Buffer.byteLength(result.compact ?? '')).toBeLessThan(1_500);
    expect(result.compact).toContain('[EVIDENCE:run_id=wf-1,job_id=build,worker_id=wf-1:build]');
    expect(result.compact).not.toContain('199999');
    expect(heartbeats.some((details) => (details as { bytes: number }).bytes > 0)).toBe(true);

    const calls = await artifacts.listToolCalls('wf-1:build');
    expect(calls.map((call) => [call.toolName, call.exitCode])).toEqual([
      ['script', 3],
      ['stderr', 3],
    ]);

    // Temporal retries the activity (say the worker died after the EMIT): same refs, no second run.
    const retry = new MockActivityEnvironment({ ...identity, attempt: 2 });
    const again: SubagentResult = await retry.run(activities.runSubagent, input);
    expect(again.outputs).toEqual(result.outputs);
    expect(again.status).toBe('failed');
    expect(await readFile(counter, 'utf8')).toBe('run\n');
    expect((await store.list({ ownerId: 'team' })).records).toHaveLength(2);
  });

  it('runs a script lost with its spawn helper again whole: a logged, retryable failure, not a script killed by SIGKILL', async () => {
    const store = new InMemoryOutputStore();
    const warnings: string[] = [];
    const activities = createActivities({
      store,
      artifacts: new InMemoryArtifactStore({ spoolDirectories: [join(dir, 'work')] }),
      workDir: join(dir, 'work'),
      env: { PATH: process.env.PATH },
      onSpawnWarning: (message) => warnings.push(message),
      // The script names its parent, the spawn helper, by $PPID: unconfined, not in a sandbox's
      // PID namespace, where its parent is that namespace's pid 1.
      sandbox: false,
    });
    const counter = join(dir, 'runs');
    const helperFile = join(dir, 'helper');
    // The first run waits until the test has killed its helper; its retry ends at once.
    const input = scriptInput(
      `echo run >> ${counter}; [ -f ${helperFile} ] && { echo done; exit 0; }; echo $PPID > ${helperFile}.tmp; mv ${helperFile}.tmp ${helperFile}; sleep 30`,
    );
    const first = new MockActivityEnvironment({ ...identity, attempt: 1 });
    const running = first.run(activities.runSubagent, input).catch((caught: unknown) => caught);
    let helper = '';
    for (let tries = 0; helper === '' && tries < 250; tries++) {
      helper = await readFile(helperFile, 'utf8').catch(() => '');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Only ever the spawn helper: never a pid read wrong (pid 1 of a namespace, a stale file).
    expect(await readFile(`/proc/${Number(helper)}/cmdline`, 'utf8')).toContain('spawn-server');
    process.kill(Number(helper), 'SIGKILL');
    const failure = await running;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'WharfSpawnHelperDied', nonRetryable: false });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^the spawn server exited \(SIGKILL\); 1 processes it started /);
    // Nothing of the first run was stored, and it no longer runs.
    expect((await store.list({ ownerId: 'team' })).records).toHaveLength(0);

    const retry = new MockActivityEnvironment({ ...identity, attempt: 2 });
    const result: SubagentResult = await retry.run(activities.runSubagent, input);
    expect(result).toMatchObject({ status: 'ok', exitCode: 0 });
    expect(Buffer.from((await store.get(result.outputs[0] as { outId: string })).body).toString()).toBe(
      'done\n',
    );
    expect(await readFile(counter, 'utf8')).toBe('run\nrun\n');
    expect((await store.list({ ownerId: 'team' })).records).toHaveLength(1);
  });

  it('sends no heartbeat for a script that ends within a second with a small output, and stores it all the same', async () => {
    const store = new InMemoryOutputStore();
    const activities = createActivities({
      store,
      artifacts: new InMemoryArtifactStore({ spoolDirectories: [join(dir, 'work')] }),
      workDir: join(dir, 'work'),
      env: { PATH: process.env.PATH },
    });
    const heartbeats: unknown[] = [];
    const environment = new MockActivityEnvironment({ ...identity, attempt: 1, heartbeatTimeoutMs: 20_000 });
    environment.on('heartbeat', (details: unknown) => heartbeats.push(details));
    const result: SubagentResult = await environment.run(activities.runSubagent, scriptInput('echo quick'));

    expect(result).toMatchObject({ status: 'ok', exitCode: 0, bytes: 6 });
    expect(Buffer.from((await store.get(result.outputs[0] as { outId: string })).body).toString()).toBe(
      'quick\n',
    );
    // Each heartbeat is a call to the server: a trivial subagent costs none.
    expect(heartbeats).toEqual([]);

    // A quick script with a large output still reports its bytes while the output is stored.
    const large = new MockActivityEnvironment({
      ...identity,
      activityId: '8',
      attempt: 1,
      heartbeatTimeoutMs: 20_000,
    });
    large.on('heartbeat', (details: unknown) => heartbeats.push(details));
    await large.run(activities.runSubagent, scriptInput('head -c 2000000 /dev/zero'));
    expect(heartbeats).toEqual([{ task: 'build', bytes: 2_000_000 }]);
  });

  it('leaves what its input omits out of an ok result, and returns a failed one whole', async () => {
    const store = new InMemoryOutputStore();
    const activities = createActivities({
      store,
      artifacts: new InMemoryArtifactStore({ spoolDirectories: [join(dir, 'work')] }),
      workDir: join(dir, 'work'),
      env: { PATH: process.env.PATH },
    });
    const run = (activityId: string, content: string, omit: SubagentInput['omit']) =>
      new MockActivityEnvironment({ ...identity, activityId, attempt: 1 }).run(activities.runSubagent, {
        ...scriptInput(content),
        ...(omit === undefined ? {} : { omit }),
      }) as Promise<SubagentResult>;

    const whole = await run('20', 'echo kept', undefined);
    expect(whole.compact).toContain('[EVIDENCE:');
    expect(whole.preview).toBe('kept\n');

    const lean = await run('21', 'echo lean', ['compact', 'preview']);
    expect(lean).toMatchObject({ status: 'ok', exitCode: 0, bytes: 5 });
    expect(lean).not.toHaveProperty('compact');
    expect(lean).not.toHaveProperty('preview');
    // Its output is stored all the same; only the texts stay out of the result.
    expect(Buffer.from((await store.get(lean.outputs[0] as { outId: string })).body).toString()).toBe(
      'lean\n',
    );
    // No signal and no timeout are left out; the duration is whole milliseconds.
    expect(lean).not.toHaveProperty('signal');
    expect(lean).not.toHaveProperty('timedOut');
    expect(Number.isInteger(lean.durationMs)).toBe(true);

    const withPreview = await run('22', 'echo read', ['compact']);
    expect(withPreview).not.toHaveProperty('compact');
    expect(withPreview.preview).toBe('read\n');

    // The fold keeps the first failures' compacts and reasons: a failure returns everything.
    const failed = await run('23', 'echo broke; exit 4', ['compact', 'preview']);
    expect(failed).toMatchObject({ status: 'failed', exitCode: 4, preview: 'broke\n' });
    expect(failed.compact).toContain('failed');
  });

  it("stores a retried script's own EMITs once and returns them among the task's outputs", async () => {
    const store = new SqliteOutputStore({ path: join(dir, 'outputs.db') });
    const secret = 'x'.repeat(32);
    // Where scripts run sandboxed (no network), they reach the intake over its Unix socket.
    const intake = await createIntakeServer({ store, secret, port: 0, socketPath: join(dir, 'intake.sock') });
    try {
      const activities = createActivities({
        store,
        artifacts: new InMemoryArtifactStore(),
        workDir: join(dir, 'work'),
        env: { PATH: process.env.PATH },
        spawnEnv: spawnCredentials({ intakeUrl: intake.url, secret }),
        sandbox: WorkerSandbox.create().with({
          intakeSocket: join(dir, 'intake.sock'),
          hidden: [join(dir, 'work')],
        }),
      });
      const client = import.meta.resolve('@wharf/output-store/client');
      const emitJs = `const { emit } = await import('${client}'); await emit(process.env.BODY, { name: process.env.NAME });`;
      const marker = join(dir, 'first-attempt');
      // The first attempt EMITs two outputs, then hangs until Temporal gives up on it (here: cancels).
      const input = scriptInput(
        [
          `if [ -e ${marker} ]; then again=1; else touch ${marker}; fi`,
          `NAME=a.txt BODY=alpha node --input-type=module -e "${emitJs}"`,
          `NAME=b.txt BODY=beta node --input-type=module -e "${emitJs}"`,
          '[ -n "$again" ] || sleep 30',
          'echo finished',
        ].join('\n'),
      );
      input.workdir = dir;
      const first = new MockActivityEnvironment({ ...identity, attempt: 1 });
      const running = first.run(activities.runSubagent, input).catch((error: unknown) => error);
      for (let tries = 0; tries < 200 && (await store.count({ ownerId: 'team' })) < 2; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      first.cancel();
      expect(await running).toBeInstanceOf(CancelledFailure);

      const second = new MockActivityEnvironment({ ...identity, attempt: 2 });
      const result: SubagentResult = await second.run(activities.runSubagent, input);
      expect(result.status).toBe('ok');
      const records = (await store.list({ ownerId: 'team' })).records;
      // stdout once, each EMIT once: the retry's EMITs returned the first attempt's refs.
      expect(records.map((record) => record.name).sort()).toEqual(['a.txt', 'b.txt', 'build.stdout.log']);
      const byName = new Map(records.map((record) => [record.name, record.outId]));
      expect(result.outputs).toEqual([
        { outId: byName.get('build.stdout.log') },
        { outId: byName.get('a.txt') },
        { outId: byName.get('b.txt') },
      ]);
      expect(Buffer.from((await store.get({ outId: byName.get('b.txt') ?? '' })).body).toString()).toBe(
        'beta',
      );

      // A retry after the end reuses everything, the script's EMITs included.
      const third = new MockActivityEnvironment({ ...identity, attempt: 3 });
      const again: SubagentResult = await third.run(activities.runSubagent, input);
      expect(again.outputs).toEqual(result.outputs);
    } finally {
      await intake.close();
      await store.close();
    }
  });

  it('is cancelled with its process when Temporal cancels the activity', async () => {
    const activities = createActivities({
      store: new InMemoryOutputStore(),
      artifacts: new InMemoryArtifactStore({ spoolDirectories: [join(dir, 'work')] }),
      workDir: join(dir, 'work'),
    });
    const environment = new MockActivityEnvironment({ ...identity, attempt: 1 });
    const started = Date.now();
    const running = environment.run(activities.runSubagent, scriptInput('sleep 30'));
    setTimeout(() => environment.cancel(), 300);
    const result = await running.catch((error: unknown) => error);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result).toBeInstanceOf(CancelledFailure);
  });

  it("runs scripts in the swarm's workdir, resolves a script's cwd against it, and rejects a missing one", async () => {
    const store = new InMemoryOutputStore();
    const activities = createActivities({
      store,
      artifacts: new InMemoryArtifactStore({ spoolDirectories: [join(dir, 'work')] }),
      workDir: join(dir, 'work'),
      env: { PATH: process.env.PATH },
    });
    const repo = join(dir, 'repo');
    await mkdir(join(repo, 'packages'), { recursive: true });
    const stdoutOf = async (result: SubagentResult) =>
      Buffer.from((await store.get(result.outputs[0] as { outId: string })).body).toString();

    const inRepo = { ...scriptInput('pwd'), workdir: repo };
    const first: SubagentResult = await new MockActivityEnvironment({ ...identity, attempt: 1 }).run(
      activities.runSubagent,
      inRepo,
    );
    expect(await stdoutOf(first)).toBe(`${repo}\n`);

    const nested = { ...scriptInput('pwd', 'packages'), task: 'nested', workdir: repo };
    const second: SubagentResult = await new MockActivityEnvironment({
      ...identity,
      activityId: '8',
      attempt: 1,
    }).run(activities.runSubagent, nested);
    expect(await stdoutOf(second)).toBe(`${join(repo, 'packages')}\n`);

    const missing = { ...scriptInput('pwd'), task: 'missing', workdir: join(dir, 'nowhere') };
    const error = await new MockActivityEnvironment({ ...identity, activityId: '9', attempt: 1 })
      .run(activities.runSubagent, missing)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect(error).toMatchObject({ type: 'WharfInvalidDefinition', nonRetryable: true });
    expect((error as Error).message).toContain(join(dir, 'nowhere'));
  });
});
