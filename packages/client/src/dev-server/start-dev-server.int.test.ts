import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import { WharfOrchestratorError } from '@wharf/swarm';
import { describe, expect, it } from 'vitest';
import { ensureTemporalCli } from './ensure-temporal-cli.js';
import { startDevServer } from './start-dev-server.js';

const packageDir = fileURLToPath(new URL('../..', import.meta.url));

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return condition();
}

/** Starts a dev server from a separate Node process and returns that process and the server's pid. */
async function serverInChild(
  ...more: string[]
): Promise<{ child: ChildProcess; serverPid: number; address: string }> {
  const script = [
    "import { startDevServer } from '@wharf/client';",
    'const server = await startDevServer({ ui: false });',
    'console.log(JSON.stringify({ pid: server.pid, address: server.address }));',
    'setInterval(() => {}, 1000);',
    ...more,
  ].join('\n');
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: packageDir,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  for await (const chunk of child.stdout ?? []) {
    output += String(chunk);
    if (output.includes('\n')) break;
  }
  const { pid, address } = JSON.parse(output) as { pid: number; address: string };
  return { child, serverPid: pid, address };
}

describe('startDevServer', () => {
  it('starts a server that answers, then stops it completely', async () => {
    const server = await startDevServer({ ui: true, searchAttributes: { WharfTestAttribute: 'Keyword' } });
    expect(server.address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(server.uiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const connection = await Connection.connect({ address: server.address });
    try {
      const attributes = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
      expect(Object.keys(attributes.customAttributes ?? {})).toContain('WharfTestAttribute');
    } finally {
      await connection.close();
    }
    expect(groupAlive(server.pid)).toBe(true);
    await server.stop();
    await server.stop(); // idempotent
    expect(groupAlive(server.pid)).toBe(false);
  });

  it('leaves no server behind when its owner is killed with SIGKILL', async () => {
    const { child, serverPid } = await serverInChild();
    expect(groupAlive(serverPid)).toBe(true);
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(await waitUntil(() => !groupAlive(serverPid), 15_000)).toBe(true);
  });

  it('leaves no server behind when its owner is interrupted (Ctrl-C)', async () => {
    const { child, serverPid } = await serverInChild();
    child.kill('SIGINT');
    const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    expect(code === 130 || signal === 'SIGINT').toBe(true);
    expect(await waitUntil(() => !groupAlive(serverPid), 15_000)).toBe(true);
  });

  it('leaves the server to an owner that handles Ctrl-C itself, until it stops it', async () => {
    // The owner drains for a second (as `wharf run` drains its worker), exits 130 if its server
    // still answered then (else 1), after stopping it.
    const { child, serverPid } = await serverInChild(
      "import { Connection } from '@temporalio/client';",
      "process.on('SIGINT', async () => {",
      '  await new Promise((resolve) => setTimeout(resolve, 1000));',
      '  const served = await Connection.connect({ address: server.address, connectTimeout: 2000 })',
      '    .then((connection) => connection.workflowService.getSystemInfo({}).finally(() => connection.close()))',
      '    .then(() => true, () => false);',
      '  await server.stop();',
      '  process.exit(served ? 130 : 1);',
      '});',
    );
    child.kill('SIGINT');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(130);
    expect(await waitUntil(() => !groupAlive(serverPid), 15_000)).toBe(true);
  });
});

describe('ensureTemporalCli', () => {
  it('finds the binary the machine has', async () => {
    const cli = await ensureTemporalCli({ allowPipInstall: false, allowDownload: false });
    expect(cli.version).toMatch(/temporal version/);
  });

  it('honours TEMPORAL_CLI_PATH before PATH', async () => {
    const found = await ensureTemporalCli({ allowPipInstall: false, allowDownload: false });
    const cli = await ensureTemporalCli({
      env: { PATH: '', TEMPORAL_CLI_PATH: found.path },
      allowPipInstall: false,
      allowDownload: false,
    });
    expect(cli).toMatchObject({ path: found.path, source: 'env' });
  });

  it('lists every attempt when nothing works', async () => {
    const attempt = ensureTemporalCli({
      env: { PATH: '/nonexistent', TEMPORAL_CLI_PATH: '/nonexistent/temporal' },
      allowPipInstall: false,
      allowDownload: false,
    });
    const error = await attempt.catch((caught: unknown) => caught);
    expect(WharfOrchestratorError.isInstance(error)).toBe(true);
    const { code, message } = error as WharfOrchestratorError;
    expect(code).toBe('TEMPORAL_CLI_NOT_FOUND');
    expect(message).toContain('TEMPORAL_CLI_PATH=/nonexistent/temporal: not an executable file');
    expect(message).toContain('PATH: no `temporal` executable');
    expect(message).toContain('pip install: disabled');
    expect(message).toContain('@temporalio/testing download: disabled');
  });

  it('starts again on fresh ports when a port it chose was taken before the server bound it', async () => {
    const real = (await ensureTemporalCli()).path;
    const dir = mkdtempSync(join(tmpdir(), 'wharf-port-race-'));
    const calls = join(dir, 'calls');
    writeFileSync(calls, '');
    // The first start loses the race for its HTTP port, as when another process takes it.
    const cli = join(dir, 'temporal');
    writeFileSync(
      cli,
      [
        '#!/bin/sh',
        `echo "$*" >> '${calls}'`,
        `if [ "$(wc -l < '${calls}')" -eq 1 ]; then`,
        '  echo "failed listening for HTTP API on 127.0.0.1:7243: listen tcp 127.0.0.1:7243: bind: address already in use" >&2',
        '  exit 1',
        'fi',
        `exec '${real}' "$@"`,
      ].join('\n'),
    );
    chmodSync(cli, 0o755);
    try {
      const server = await startDevServer({ cliPath: cli, ui: false });
      try {
        const starts = readFileSync(calls, 'utf8').trim().split('\n');
        expect(starts).toHaveLength(2);
        expect(starts[1]).toContain(`--port ${server.address.split(':')[1]}`);
      } finally {
        await server.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('does not retry a port the caller chose', async () => {
    // A port free now (not 7233: another test's server may hold it), that the fake CLI says is taken.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const dir = mkdtempSync(join(tmpdir(), 'wharf-port-race-'));
    const calls = join(dir, 'calls');
    const cli = join(dir, 'temporal');
    writeFileSync(
      cli,
      [
        '#!/bin/sh',
        `echo "$*" >> '${calls}'`,
        `echo "listen tcp 127.0.0.1:${port}: bind: address already in use" >&2`,
        'exit 1',
      ].join('\n'),
    );
    chmodSync(cli, 0o755);
    try {
      const error = await startDevServer({ cliPath: cli, ui: false, port }).catch(
        (caught: unknown) => caught,
      );
      expect(WharfOrchestratorError.isInstance(error) && error.code).toBe('DEV_SERVER_FAILED');
      expect(readFileSync(calls, 'utf8').trim().split('\n')).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
