import { execFile, spawn } from 'node:child_process';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseSwarm, type SwarmProgress, type TaskProgress } from '@wharf/orchestrator';
import { WharfClient } from '@wharf/orchestrator/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';

const execFileAsync = promisify(execFile);
const cli = fileURLToPath(new URL('../../apps/cli/dist/main.js', import.meta.url));

/** Runs the `wharf` command against the test's Temporal server. */
async function wharf(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [cli, ...args], { timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

function taskOf(tasks: readonly TaskProgress[], name: string): TaskProgress {
  const found = tasks.find((task) => task.task === name);
  if (found === undefined) throw new Error(`no task ${name}`);
  return found;
}

/** Polls the progress query until `ready` holds (a worker must be running). */
async function progressUntil(
  env: SwarmTestEnv,
  workflowId: string,
  ready: (progress: SwarmProgress) => boolean,
): Promise<SwarmProgress> {
  for (;;) {
    const progress = await env.wharf.progress(workflowId).catch(() => undefined);
    if (progress !== undefined && ready(progress)) return progress;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('dynamic control flow and human in the loop', () => {
  let env: SwarmTestEnv;
  let address: string;
  beforeAll(async () => {
    env = await createSwarmTestEnv('control-flow');
    address = inject('temporalAddress');
  });
  afterAll(async () => {
    await env?.close();
  });

  it('skips a task whose when: is false, and its dependents; the other branch runs', async () => {
    const definition = parseSwarm(`
name: branch
tasks:
  check:
    script: { content: echo no }
    output: †data.check
  deploy:
    depends_on: [check]
    when: "†data.check.preview == 'yes'"
    script: { content: echo deploying }
  announce:
    depends_on: [deploy]
    script: { content: echo announced }
  hold:
    depends_on: [check]
    when: "†data.check.exitCode == 0 && †data.check.preview != 'yes'"
    script: { content: echo holding }
`);
    const { workflowId } = await env.wharf.startSwarm(definition);
    const result = await env.withWorker(() => env.wharf.result(workflowId));
    expect(result.status).toBe('completed');
    expect(taskOf(result.tasks, 'check').status).toBe('done');
    expect(taskOf(result.tasks, 'deploy')).toMatchObject({ status: 'skipped', outIds: [] });
    expect(taskOf(result.tasks, 'deploy').reason).toContain("when: †data.check.preview == 'yes' is false");
    expect(taskOf(result.tasks, 'announce')).toMatchObject({
      status: 'skipped',
      reason: 'dependency deploy skipped',
    });
    expect(taskOf(result.tasks, 'hold').status).toBe('done');
    expect(result.metrics.skippedCount).toBe(2);
  }, 90_000);

  it('fans a map loop out over a list produced at run time, at most max_concurrency at once', async () => {
    const marks = join(env.dir, 'map-marks');
    await mkdir(marks, { recursive: true });
    const definition = parseSwarm(`
name: fan-out
tasks:
  list:
    script: { content: "printf 'alpha\\\\nbeta\\\\ngamma\\\\ndelta\\\\nepsilon\\\\n'" }
    output: †data.list
  each:
    depends_on: [list]
    loop: { type: map, over: †data.list.preview, max_concurrency: 2 }
    output: †data.each
    script:
      content: |
        item=$(node -e 'process.stdout.write(String(JSON.parse(process.env.WHARF_INPUTS).item))')
        echo "start $(date +%s%N)" > "${marks}/$WHARF_INSTANCE"
        sleep 1.5
        echo "end $(date +%s%N)" >> "${marks}/$WHARF_INSTANCE"
        echo "item $item" >> "${marks}/$WHARF_INSTANCE"
        echo "did $item"
  after:
    depends_on: [each]
    inputs: { results: †data.each }
    script: { content: echo after }
`);
    const { workflowId } = await env.wharf.startSwarm(definition, {}, { maxConcurrentTasks: 50 });
    const result = await env.withWorker(() => env.wharf.result(workflowId));
    expect(result.status).toBe('completed');
    const each = taskOf(result.tasks, 'each');
    expect(each).toMatchObject({ status: 'done', instances: { done: 5, total: 5 } });
    expect(each.outIds).toHaveLength(5);
    expect(taskOf(result.tasks, 'after').status).toBe('done');

    // Every item ran once, as its own instance.
    const files = (await readdir(marks)).sort();
    expect(files).toEqual(['0', '1', '2', '3', '4']);
    const runs = await Promise.all(
      files.map(async (file) => {
        const text = await readFile(join(marks, file), 'utf8');
        const value = (key: string) =>
          /^(\w+) (.*)$/m.exec(text.split('\n').find((line) => line.startsWith(key)) ?? '')?.[2];
        return {
          start: BigInt(value('start') ?? '0'),
          end: BigInt(value('end') ?? '0'),
          item: value('item'),
        };
      }),
    );
    expect(runs.map((run) => run.item)).toEqual(['alpha', 'beta', 'gamma', 'delta', 'epsilon']);
    // At each instance's start, how many instances were running: never more than the cap.
    const overlaps = runs.map(
      (run) => runs.filter((other) => other.start <= run.start && run.start < other.end).length,
    );
    expect(Math.max(...overlaps)).toBeLessThanOrEqual(2);
  }, 120_000);

  it('waits at an approval gate, shows it pending, and runs the task once approved', async () => {
    const definition = parseSwarm(`
name: gated
tasks:
  build:
    script: { content: echo built }
  deploy:
    depends_on: [build]
    approval: { prompt: Ship the build? }
    script: { content: echo shipped }
  announce:
    depends_on: [deploy]
    script: { content: echo announced }
`);
    const { workflowId } = await env.wharf.startSwarm(definition);
    const result = await env.withWorker(async () => {
      const progress = await progressUntil(env, workflowId, (current) =>
        current.tasks.some((task) => task.approval?.requestedAt !== undefined),
      );
      expect(taskOf(progress.tasks, 'deploy')).toMatchObject({
        status: 'waiting',
        approval: { prompt: 'Ship the build?' },
      });
      expect(taskOf(progress.tasks, 'announce').status).toBe('pending');
      expect(await env.wharf.pendingApprovals(workflowId)).toEqual([
        expect.objectContaining({ task: 'deploy', prompt: 'Ship the build?' }),
      ]);

      // `wharf status` lists it with the command that answers it; describe shows it in the memo.
      const status = await wharf(['status', workflowId, '--address', address, '--data-dir', env.dir]);
      expect(status.code).toBe(0);
      expect(status.stdout).toContain('Waiting for approval (1):');
      expect(status.stdout).toContain(`wharf approve ${workflowId} deploy`);
      // The task table's note names the run too, never a placeholder.
      expect(status.stdout).toContain(
        `awaits approval: Ship the build? (wharf approve ${workflowId} deploy --address ${address})`,
      );
      expect(status.stdout).not.toContain('<run>');
      const handle = env.temporal.client.workflow.getHandle(workflowId);
      expect((await handle.describe()).memo?.pendingApprovals).toEqual(['deploy']);
      // The Web UI's current details (read through the built-in metadata query) lead with the gate.
      const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
      expect(metadata.currentDetails).toMatch(/^\*\*Waiting for approval\*\* \(1\)/);
      expect(metadata.currentDetails).toContain(
        `\`deploy\`: Ship the build? — \`wharf approve ${workflowId} deploy`,
      );

      const approved = await wharf([
        'approve',
        workflowId,
        'deploy',
        '--comment',
        'looks good',
        '--by',
        'ana',
        '--address',
        address,
      ]);
      expect(approved.stdout).toContain('deploy approved (looks good)');
      expect(approved.code).toBe(0);
      return env.wharf.result(workflowId);
    });
    expect(result.status).toBe('completed');
    const deploy = taskOf(result.tasks, 'deploy');
    expect(deploy).toMatchObject({
      status: 'done',
      approval: { decision: 'approved', comment: 'looks good', by: 'ana' },
    });
    expect(taskOf(result.tasks, 'announce').status).toBe('done');
  }, 120_000);

  it('`approve` and `input` refuse at once (exit 5) a run no worker serves, naming its queue', async () => {
    // A queue nobody polls: the Update would wait for a worker that never comes.
    const taskQueue = `control-flow-unserved-${Date.now()}`;
    const unserved = new WharfClient({ client: env.wharf.client, taskQueue });
    const { workflowId } = await unserved.startSwarm(
      parseSwarm(`
name: unserved
tasks:
  deploy:
    approval: { prompt: Ship the build? }
    script: { content: echo shipped }
`),
    );
    try {
      const [approved, input] = await Promise.all([
        wharf(['approve', workflowId, 'deploy', '--address', address]),
        wharf(['input', workflowId, 'region=eu', '--address', address]),
      ]);
      for (const [command, outcome] of [
        ['approve', approved],
        ['input', input],
      ] as const) {
        expect(outcome.code).toBe(5);
        expect(outcome.stderr).toContain(`no worker serves ${workflowId} (task queue ${taskQueue})`);
        expect(outcome.stderr).toContain(`\`wharf ${command}\` needs one`);
        expect(outcome.stderr).toContain(`wharf resume ${workflowId}`);
      }
      // Nothing was recorded: the gate still waits for its answer.
      expect((await env.temporal.client.workflow.getHandle(workflowId).describe()).status.name).toBe(
        'RUNNING',
      );
    } finally {
      await env.temporal.client.workflow.getHandle(workflowId).terminate('test over');
    }
  }, 120_000);

  it('skips a rejected task and its dependents, recording the comment', async () => {
    const definition = parseSwarm(`
name: rejected
tasks:
  deploy:
    approval: { prompt: Ship? }
    script: { content: echo shipped }
  announce:
    depends_on: [deploy]
    script: { content: echo announced }
`);
    const { workflowId } = await env.wharf.startSwarm(definition);
    const result = await env.withWorker(async () => {
      await progressUntil(
        env,
        workflowId,
        (current) => taskOf(current.tasks, 'deploy').approval !== undefined,
      );
      const unknown = await env.wharf
        .approveTask(workflowId, 'announce', { approve: true })
        .catch((error: Error) => error);
      expect((unknown as Error).message).toContain('announce has no approval gate');
      await env.wharf.approveTask(workflowId, 'deploy', { approve: false, comment: 'not on a Friday' });
      return env.wharf.result(workflowId);
    });
    expect(result.status).toBe('completed');
    expect(taskOf(result.tasks, 'deploy')).toMatchObject({
      status: 'skipped',
      reason: 'rejected: not on a Friday',
      approval: { decision: 'rejected', comment: 'not on a Friday' },
    });
    expect(taskOf(result.tasks, 'announce')).toMatchObject({
      status: 'skipped',
      reason: 'dependency deploy skipped',
    });
    // A gate nobody answers is decided by its on_timeout: timed-waits.int.test.ts.
  }, 120_000);

  it('feeds `wharf input` to a task waiting on †input.*', async () => {
    const definition = parseSwarm(`
name: input-fed
tasks:
  greet:
    inputs: { region: †input.region }
    script: { content: "node -e 'console.log(\\"region=\\" + JSON.parse(process.env.WHARF_INPUTS).region)'" }
    output: †data.greet
`);
    const { workflowId } = await env.wharf.startSwarm(definition, {}, { waitForInputsMs: 60_000 });
    const result = await env.withWorker(async () => {
      await progressUntil(env, workflowId, (current) => taskOf(current.tasks, 'greet').status === 'waiting');
      const added = await wharf(['input', workflowId, 'region=eu-west', '--address', address]);
      expect(added.stdout).toContain('added †input.region');
      return env.wharf.result(workflowId);
    });
    expect(result.status).toBe('completed');
    expect(taskOf(result.tasks, 'greet').status).toBe('done');
    const { body } = await env.store.get({ outId: taskOf(result.tasks, 'greet').outIds[0] as string });
    expect(Buffer.from(body).toString('utf8')).toContain('region=eu-west');
  }, 90_000);

  it('runs the release-train example from the command line, answered with `wharf approve`', async () => {
    const example = fileURLToPath(new URL('../../examples/release-train.yaml', import.meta.url));
    const child = spawn(
      process.execPath,
      [cli, 'run', example, '--follow', '--address', address, '--data-dir', join(env.dir, 'cli-data')],
      { cwd: env.dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const hint = new Promise<string>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /publish waits for approval; answer with: wharf approve (\S+) publish /.exec(stderr);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
    });
    const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
    const workflowId = await hint;
    // --follow shows the gate once the tests passed.
    while (!stdout.includes('publish: waiting awaits approval'))
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stdout).toMatch(/test: running 0\/4|test: done 4\/4/);
    const approved = await wharf([
      'approve',
      workflowId,
      'publish',
      '--comment',
      'notes checked',
      '--address',
      address,
    ]);
    expect(approved.code).toBe(0);
    expect(await exited).toBe(0);
    expect(stdout).toContain('publish: done');
    expect(stdout).toContain('hold: skipped (when: †data.failures.preview > 0 is false)');
    expect(stdout).toContain('test: done');
  }, 120_000);
});
