import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseSwarm } from '@wharf/orchestrator';
import { WharfClient } from '@wharf/orchestrator/client';
import { type DataDir, openDataDir } from '@wharf/orchestrator/embedded';
import { createWharfDataConverter } from '@wharf/orchestrator/node';
import { Sandbox } from '@wharf/stdio-limits';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestEnv, type TemporalTestEnv, taskQueueFor } from './temporal-env.js';

// A real worker process that must sandbox (WHARF_SANDBOX=required), its data directory inside
// the swarm's work directory, secrets in its environment. One script tries what an unconfined
// script could do on a worker; another EMITs through the intake as every script does.
const workerMain = fileURLToPath(new URL('../../apps/worker/dist/main.js', import.meta.url));
const cli = fileURLToPath(new URL('../../apps/cli/dist/main.js', import.meta.url));
const run = promisify(execFile);
const detected = Sandbox.detect();
const ci = process.env.CI === 'true';

/** Host pids whose command line is exactly `command`. */
function processesRunning(command: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim() === command;
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe.skipIf(detected.sandbox === undefined && !ci)('scripts in the sandbox', () => {
  let temporal: TemporalTestEnv;
  let scratch: string;
  let worker: ChildProcess | undefined;
  let data: DataDir | undefined;
  let listener: Server;
  let connections = 0;

  beforeAll(async () => {
    temporal = await connectTestEnv();
    // In the checkout, which a sandbox shows read-only (under /tmp too, as Wharf's install): not
    // in a /tmp of its own, which it replaces anyway. The policy alone must keep things out.
    scratch = await mkdtemp(join(process.cwd(), '.sandbox-e2e-'));
    listener = createServer((socket) => {
      connections += 1;
      socket.end('reached\n');
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    if (worker !== undefined && worker.exitCode === null && worker.signalCode === null) {
      worker.kill('SIGTERM');
      await once(worker, 'exit');
    }
    await data?.close();
    await new Promise((resolve) => listener.close(resolve));
    await temporal?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it("gets nothing of the worker's, the data directory, other tasks or the network; EMITs still work", async () => {
    const workdir = join(scratch, 'work');
    const otherWorkdir = join(scratch, 'other');
    const dataDir = join(workdir, '.wharf');
    await mkdir(workdir, { recursive: true });
    await mkdir(otherWorkdir);
    await writeFile(join(otherWorkdir, 'notes.txt'), 'the other task');
    const secrets = { openai: 'sk-planted-9b2c4d6e', intake: 'intake-planted-8c1d3e5f' };
    const taskQueue = taskQueueFor('sandbox');
    worker = spawn(process.execPath, [workerMain], {
      cwd: workdir,
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: temporal.address,
        WHARF_TASK_QUEUE: taskQueue,
        WHARF_DATA_DIR: dataDir,
        WHARF_SHUTDOWN_GRACE_MS: '1000',
        WHARF_SANDBOX: 'required',
        OPENAI_API_KEY: secrets.openai,
        WHARF_INTAKE_SECRET: secrets.intake,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log: string[] = [];
    worker.stderr?.on('data', (chunk) => log.push(String(chunk)));
    let started = false;
    for await (const chunk of worker.stdout ?? []) {
      log.push(String(chunk));
      if (log.join('').includes('"worker-start"')) {
        started = true;
        worker.stdout?.on('data', (more) => log.push(String(more)));
        break;
      }
    }
    expect(started, log.join('')).toBe(true);
    expect(log.join('')).toContain('"sandbox":"sandbox on"');

    data = await openDataDir(dataDir);
    const wharf = new WharfClient({
      connection: temporal.client.connection,
      taskQueue,
      dataConverter: createWharfDataConverter({ store: data.store }),
    });

    // Another swarm's task, running in its own work directory while the attack runs.
    const other = await wharf.startSwarm(
      parseSwarm(`
name: other
tasks:
  wait:
    script: { content: "touch started; i=0; while [ ! -e released ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done" }
`),
      {},
      { workdir: otherWorkdir },
    );
    for (let tries = 0; tries < 200 && !existsSync(join(otherWorkdir, 'started')); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // `wharf status` names the workers and whether they sandbox.
    const status = await run(process.execPath, [
      cli,
      'status',
      other.workflowId,
      '--address',
      temporal.address,
      '--data-dir',
      dataDir,
    ]);
    expect(status.stdout).toMatch(/worker \d+@.* \(sandbox on\)/);

    const port = (listener.address() as { port: number }).port;
    const marker = String(Date.now() % 100_000);
    const probe = `require('net').connect(${port}, '127.0.0.1').on('data', (d) => process.stdout.write(String(d))).on('error', (e) => console.log(e.code))`;
    const host = hostname();
    const attack = [
      'try() { name=$1; shift; out=$("$@" 2>/dev/null | tr "\\0" "\\n" | head -c 4000); [ -n "$out" ] || out=nothing; echo "$name: $out"; }',
      `try worker-environ cat /proc/${worker.pid}/environ`,
      "try any-environ sh -c 'cat /proc/[0-9]*/environ'",
      `try secret cat ${join(dataDir, 'secret')}`,
      `try data-dir ls -A ${dataDir}`,
      `try plant sh -c 'mkdir -p ${dataDir}/process-groups/${host} && echo "{\\"pgid\\":1,\\"ownerPid\\":2,\\"token\\":\\"t\\"}" > ${dataDir}/process-groups/${host}/1.json && echo written'`,
      `try other-workdir cat ${join(otherWorkdir, 'notes.txt')}`,
      `try network node -e "${probe}"`,
      `setsid sh -c 'exec sleep 3${marker}' </dev/null >/dev/null 2>&1 &`,
      'echo done',
    ].join('\n');
    const definition = parseSwarm(`
name: sandbox-attack
tasks:
  attack:
    script:
      content: ${JSON.stringify(attack)}
  emit:
    script:
      content: echo "hello from the sandbox" | node ${cli} emit --name greeting.txt
`);
    const { workflowId } = await wharf.startSwarm(definition, {}, { workdir });
    const result = await wharf.result(workflowId);
    expect(result.status, JSON.stringify(result)).toBe('completed');

    const body = async (outId: string | undefined) =>
      Buffer.from((await data?.store.get({ outId: outId ?? '' }))?.body ?? []).toString('utf8');
    const printed = await body(result.outputs.attack?.[0]);
    const lines = Object.fromEntries(
      printed
        .trim()
        .split('\n')
        .filter((line) => line.includes(': '))
        .map((line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)]),
    );
    expect(lines).toMatchObject({
      'worker-environ': 'nothing',
      secret: 'nothing',
      'other-workdir': 'nothing',
      network: 'ECONNREFUSED',
    });
    // Only its own processes' environments, which hold none of the worker's secrets.
    for (const secret of Object.values(secrets)) expect(printed).not.toContain(secret);
    expect(printed).not.toContain(readFileSync(join(dataDir, 'secret'), 'utf8').trim());
    // The data directory is empty in there but for the way to the task's own input files
    // (work/<worker>.attempt-1, bound read-only); what it writes there stays in the sandbox.
    expect(lines['data-dir']).toBe('work');
    expect(existsSync(join(dataDir, 'process-groups', host, '1.json'))).toBe(false);
    expect(connections).toBe(0);
    expect(processesRunning(`sleep 3${marker}`)).toEqual([]);

    const emitted = result.outputs.emit ?? [];
    const texts = await Promise.all(emitted.map(body));
    expect(texts).toContain('hello from the sandbox\n');
    // The other task runs until the attack is over, however slow the machine, then ends.
    await writeFile(join(otherWorkdir, 'released'), '');
    expect((await wharf.result(other.workflowId)).status).toBe('completed');
  });
});
