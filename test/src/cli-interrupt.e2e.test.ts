import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { wharfSearchAttributeKinds } from '@wharf/orchestrator';
import { type DevServer, startDevServer } from '@wharf/orchestrator/dev-server';
import { processGroupAlive } from '@wharf/stdio-limits';
import { afterAll, beforeAll, describe, type ExpectStatic, it } from 'vitest';
import { envWith, runWharf, spawnWharf } from './wharf-cli.js';

// Ctrl-C on a real `wharf run` process (apps/cli/dist: `pnpm build` first) while its script runs.
// On a Temporal dev server of its own: the runs it leaves waiting for a worker, and the `wharf dev`
// it starts, must not meet other tests' `wharf` processes polling the same task queue.

/** A script that records its process group (its shell leads it), starts a child and sleeps; run again, it says so. */
const napper = (name: string) =>
  [
    `name: ${name}`,
    'tasks:',
    '  nap:',
    '    script:',
    `      content: 'if [ -e ${name}.pid ]; then echo resumed; exit 0; fi; echo $$ > ${name}.pid; sleep 30 & wait'`,
  ].join('\n');

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// The cases run side by side, each with a data directory of its own (a worker that starts on a
// data directory ends the scripts it finds recorded there), waiting out their drains together.
describe.concurrent('Ctrl-C on wharf run', () => {
  let dir: string;
  let server: DevServer;
  let connection: Connection;
  let env: { address: string; client: Client };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-cli-interrupt-'));
    server = await startDevServer({ ui: false, searchAttributes: wharfSearchAttributeKinds });
    connection = await Connection.connect({ address: server.address });
    env = { address: server.address, client: new Client({ connection }) };
  });
  afterAll(async () => {
    await connection?.close();
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** Starts `wharf run` on a napper swarm and resolves once its script runs: the process, the run id, the script's process group. */
  async function runUntilNapping(expect: ExpectStatic, name: string) {
    await writeFile(join(dir, `${name}.yaml`), napper(name));
    const run = spawnWharf(
      ['run', `${name}.yaml`, '--address', env.address, '--data-dir', `.wharf-${name}`],
      dir,
    );
    const workflowId = (await run.waitFor(/started (\S+)/))[1] as string;
    await until(() => existsSync(join(dir, `${name}.pid`)), 60_000);
    const scriptGroup = Number(readFileSync(join(dir, `${name}.pid`), 'utf8'));
    expect(processGroupAlive(scriptGroup)).toBe(true);
    return { run, workflowId, scriptGroup };
  }

  it('says at once where the swarm goes on and how to reach it, exits 130 within the time it names; the run stays RUNNING, its script ends, and wharf resume finishes it', async ({
    expect,
  }) => {
    const { run, workflowId, scriptGroup } = await runUntilNapping(expect, 'interrupted');
    const signalled = Date.now();
    run.child.kill('SIGINT');
    // The message comes at once (well before the drain it announces is over).
    const [, drainSeconds, exitSeconds] = await run.waitFor(
      /stopping the worker: steps in flight get up to (\d+) s to finish.*out within (\d+) s \(Ctrl-C again to exit now\)/,
    );
    expect(Date.now() - signalled).toBeLessThan(Number(drainSeconds) * 1000);
    const { stderr: said } = run.output();
    expect(said).toContain(`The swarm keeps running on the Temporal server as ${workflowId}`);
    expect(said).toContain(`to see it: wharf status ${workflowId} --address ${env.address}`);
    expect(said).toContain(
      `to go on: wharf resume ${workflowId} --data-dir .wharf-interrupted --address ${env.address}`,
    );
    expect(said).toMatch(/on its task queue wharf-\d+-[0-9a-f]+;/);

    const { code } = await run.exited;
    const elapsed = Date.now() - signalled;
    expect(code).toBe(130);
    // The script sleeps past the drain: the command gave it the drain, then left within the time it named.
    expect(elapsed).toBeLessThanOrEqual(Number(exitSeconds) * 1000 + 1_000);
    expect(elapsed).toBeGreaterThanOrEqual(Number(drainSeconds) * 1000 - 500);
    expect(run.output().stderr).toContain(
      `wharf: stopped; ${workflowId} keeps running on the server, waiting for a worker`,
    );
    expect(run.output().stderr).not.toContain('unexpected error');

    const handle = env.client.workflow.getHandle(workflowId);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    // Neither the script's shell nor its background child outlives the command.
    expect(processGroupAlive(scriptGroup)).toBe(false);

    // Its worker left a moment ago (its poller still shows as recent): status answers at once
    // from the memo, saying no worker serves the run and how to give it one.
    // (What every status costs, node and the CLI's modules included, is timed on no run.)
    let asked = Date.now();
    await runWharf(['status', 'no-such-run', '--address', env.address], dir);
    const base = Date.now() - asked;
    asked = Date.now();
    const status = await runWharf(['status', workflowId, '--address', env.address], dir);
    const took = Date.now() - asked;
    console.log(`wharf status right after Ctrl-C: ${took} ms, ${took - base} ms beyond a status of no run`);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`no worker answers for it: \`wharf resume ${workflowId}\` gives it one`);
    // About 1.5 s beyond on a quiet machine (a 1 s query wait, then the memo); the bound is what
    // no loaded run reaches while the old 30 s wait on a gone worker would still fail it.
    expect(took - base).toBeLessThan(12_000);

    // The message's way on: a worker for this data directory, on the run's queue, picks the step up again.
    const resumed = await runWharf(
      ['resume', workflowId, '--address', env.address, '--data-dir', '.wharf-interrupted'],
      dir,
      {
        timeoutMs: 120_000,
      },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    const result = (await handle.result()) as { status: string; tasks: { task: string; status: string }[] };
    expect(result.status).toBe('completed');
    expect(result.tasks).toEqual([expect.objectContaining({ task: 'nap', status: 'done' })]);
  });

  it('a second Ctrl-C exits at once, with the run id, and ends the script', async ({ expect }) => {
    const { run, workflowId, scriptGroup } = await runUntilNapping(expect, 'twice');
    run.child.kill('SIGINT');
    await run.waitFor(/Ctrl-C again to exit now/);
    const signalled = Date.now();
    run.child.kill('SIGINT');
    const { code } = await run.exited;
    expect(code).toBe(130);
    // At once: nothing waits for the drain.
    expect(Date.now() - signalled).toBeLessThan(3_000);
    expect(run.output().stderr).toContain(
      `wharf: exiting now; ${workflowId} keeps running on the server (wharf status ${workflowId} --address ${env.address}).`,
    );
    expect((await env.client.workflow.getHandle(workflowId).describe()).status.name).toBe('RUNNING');
    expect(processGroupAlive(scriptGroup)).toBe(false);
  });

  it('wharf resume stops on Ctrl-C as wharf run does: the message, the drain, exit 130', async ({
    expect,
  }) => {
    const name = 'resumed-twice';
    const script = `echo $$ >> ${name}.pids; sleep 30 & wait`;
    await writeFile(
      join(dir, `${name}.yaml`),
      `name: ${name}\ntasks:\n  nap:\n    script:\n      content: '${script}'\n`,
    );
    const starts = () =>
      existsSync(join(dir, `${name}.pids`))
        ? readFileSync(join(dir, `${name}.pids`), 'utf8')
            .trim()
            .split('\n').length
        : 0;
    const run = spawnWharf(
      ['run', `${name}.yaml`, '--address', env.address, '--data-dir', `.wharf-${name}`],
      dir,
    );
    const workflowId = (await run.waitFor(/started (\S+)/))[1] as string;
    await until(() => starts() === 1, 60_000);
    run.child.kill('SIGINT');
    expect((await run.exited).code).toBe(130);

    const resume = spawnWharf(
      ['resume', workflowId, '--address', env.address, '--data-dir', `.wharf-${name}`],
      dir,
    );
    await resume.waitFor(/resumed /);
    // The step handed back at the drain runs again on the resumed worker.
    await until(() => starts() === 2, 60_000);
    resume.child.kill('SIGINT');
    await resume.waitFor(/Ctrl-C again to exit now/);
    expect(resume.output().stderr).toContain(
      `The swarm keeps running on the Temporal server as ${workflowId}`,
    );
    expect(resume.output().stderr).toContain(
      `to go on: wharf resume ${workflowId} --data-dir .wharf-${name} --address ${env.address}`,
    );
    expect((await resume.exited).code).toBe(130);
    expect(resume.output().stderr).toContain(`wharf: stopped; ${workflowId} keeps running on the server`);
    expect((await env.client.workflow.getHandle(workflowId).describe()).status.name).toBe('RUNNING');
    await env.client.workflow.getHandle(workflowId).terminate('test over');
  });

  it('with a dev server of its own, keeps the run in the data directory, and wharf resume starts that server again and finishes it', async (context) => {
    const { expect } = context;
    // `wharf run` without a server starts one on 7233 when that port is free: nothing else may hold it.
    if (!(await portFree(7233))) context.skip('port 7233 is in use on this machine');
    const noCluster = envWith(
      Object.fromEntries(
        Object.keys(process.env)
          .filter((name) => name.startsWith('TEMPORAL_'))
          .map((name) => [name, undefined]),
      ),
    );
    const name = 'own-server';
    await writeFile(join(dir, `${name}.yaml`), napper(name));
    const run = spawnWharf(['run', `${name}.yaml`, '--data-dir', 'own'], dir, { env: noCluster });
    await run.waitFor(/starting a local Temporal dev server/);
    const workflowId = (await run.waitFor(/started (\S+)/))[1] as string;
    await until(() => existsSync(join(dir, `${name}.pid`)), 60_000);
    run.child.kill('SIGINT');
    await run.waitFor(/Ctrl-C again to exit now/);
    const { stderr: said } = run.output();
    expect(said).toContain(`to go on: wharf resume ${workflowId} --data-dir own   starts that server again`);
    expect((await run.exited).code).toBe(130);
    expect(run.output().stderr).toContain(
      `stopped; ${workflowId} waits in own/temporal.db for wharf resume ${workflowId} --data-dir own`,
    );

    // The command it named, as it named it: the server comes back from own/temporal.db, the run ends.
    const resumed = await runWharf(['resume', workflowId, '--data-dir', 'own', '--json'], dir, {
      env: noCluster,
      timeoutMs: 180_000,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('starting a local Temporal dev server');
    const result = JSON.parse(resumed.stdout) as {
      status: string;
      tasks: { task: string; status: string }[];
    };
    expect(result.status).toBe('completed');
    expect(result.tasks).toEqual([expect.objectContaining({ task: 'nap', status: 'done' })]);
  });
});

/** True when nothing listens on the port (a server `wharf run` starts would take it). */
async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}
