import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectTemporal, loadTemporalConfig, WharfClient } from '@wharf/orchestrator/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isolatedEnv } from './isolated-env.js';
import { type GrpcFront, startGrpcFront } from './servers/grpc-front.js';
import { createTestCertificates, type TestCertificates } from './servers/test-ca.js';
import { startTlsFront, type TlsFront } from './servers/tls-front.js';
import { runWharf } from './wharf-cli.js';

// A Temporal cluster reached the way Temporal Cloud or a secured cluster is: over TLS with a
// client certificate (mTLS) or with an API key, configured only by Temporal's standard
// environment variables and config-file profiles. The dev server speaks plain text, so the test
// puts fronts before it: a TLS front that demands a client certificate from the test CA, and a
// gRPC front over TLS that records the `authorization` header of every call.

const workerMain = fileURLToPath(new URL('../../apps/worker/dist/main.js', import.meta.url));
const swarm = 'name: hello\ntasks:\n  greet: { script: { content: echo hello from a secured cluster } }\n';

/** Runs `wharf` with exactly `env`. */
function wharf(args: string[], cwd: string, env: Record<string, string>) {
  return runWharf(args, cwd, { timeoutMs: 180_000, env });
}

/** `apps/worker` in a process of its own, configured by `env`; resolves at its `worker-start` line. */
async function startWorkerProcess(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; log: string[] }> {
  const child = spawn(process.execPath, [workerMain], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const log: string[] = [];
  child.stderr?.on('data', (chunk) => log.push(String(chunk)));
  let buffered = '';
  for await (const chunk of child.stdout ?? []) {
    buffered += String(chunk);
    log.push(String(chunk));
    const line = buffered.split('\n').find((text) => text.includes('"worker-start"'));
    if (line !== undefined) {
      child.stdout?.on('data', (more) => log.push(String(more)));
      return { child, log };
    }
  }
  throw new Error(`the worker exited before it started:\n${log.join('')}`);
}

async function stopWorkerProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

describe('any Temporal cluster, configured the standard way', () => {
  let scratch: string;
  let certificates: TestCertificates;
  let mtls: TlsFront;
  let apiKeyFront: GrpcFront;

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'wharf-cluster-'));
    await mkdir(join(scratch, 'pki'));
    certificates = await createTestCertificates(join(scratch, 'pki'));
    mtls = await startTlsFront({
      upstream: inject('temporalAddress'),
      certificates,
      requireClientCertificate: true,
    });
    apiKeyFront = await startGrpcFront({ upstream: inject('temporalAddress'), certificates });
    await writeFile(join(scratch, 'swarm.yaml'), swarm);
  });

  afterAll(async () => {
    await mtls?.stop();
    await apiKeyFront?.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it('runs a swarm through the CLI and the worker over mTLS, from a config-file profile only', async () => {
    const configFile = join(scratch, 'temporal.toml');
    await writeFile(
      configFile,
      [
        '[profile.default]',
        'address = "127.0.0.1:1"',
        '[profile.secure]',
        `address = "${mtls.address}"`,
        'namespace = "default"',
        '[profile.secure.tls]',
        `client_cert_path = "${certificates.clientCert}"`,
        `client_key_path = "${certificates.clientKey}"`,
        `server_ca_cert_path = "${certificates.caCert}"`,
        `server_name = "${certificates.serverName}"`,
      ].join('\n'),
    );
    const env = { ...isolatedEnv(scratch), TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'secure' };

    // The CLI: its client and its in-process worker both go through the front.
    const run = await wharf(
      ['run', 'swarm.yaml', '--json', '--data-dir', join(scratch, 'cli-data')],
      scratch,
      env,
    );
    expect(run.stderr).not.toContain('starting a local Temporal dev server');
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ swarm: 'hello', status: 'completed' });

    // The worker app, and a client of the library, configured by the same profile.
    const taskQueue = `cluster-mtls-${process.pid}`;
    const worker = await startWorkerProcess({
      ...env,
      WHARF_TASK_QUEUE: taskQueue,
      WHARF_DATA_DIR: join(scratch, 'worker-data'),
      WHARF_SHUTDOWN_GRACE_MS: '1000',
    });
    try {
      const started = JSON.parse(
        worker.log
          .join('')
          .split('\n')
          .find((line) => line.includes('"worker-start"')) ?? '{}',
      );
      expect(started).toMatchObject({
        address: mtls.address,
        temporal: `${mtls.address} (namespace default, TLS; from profile "secure" in ${configFile})`,
      });
      const wharfClient = await WharfClient.connect({ env, taskQueue });
      try {
        const { workflowId } = await wharfClient.startSwarm(swarm);
        expect(await wharfClient.result(workflowId)).toMatchObject({ status: 'completed' });
        // `wharf status` reads it through the front too.
        const status = await wharf(['status', workflowId, '--json'], scratch, env);
        expect(status.code, status.stderr).toBe(0);
        expect(JSON.parse(status.stdout)).toMatchObject({ swarm: 'hello', status: 'completed' });
      } finally {
        await wharfClient.client.connection.close();
      }
    } finally {
      await stopWorkerProcess(worker.child);
    }
    // Every connection came with the CA's client certificate, over HTTP/2.
    expect(mtls.accepted.length).toBeGreaterThan(2);
    expect(
      mtls.accepted.every((connection) => connection.client === 'client' && connection.alpn === 'h2'),
    ).toBe(true);
  });

  it('is refused by the mTLS front without a client certificate of its CA', async () => {
    const refusedBefore = mtls.refused.length;
    for (const env of [
      // Server-authenticated TLS only: no client certificate.
      { TEMPORAL_ADDRESS: mtls.address, TEMPORAL_TLS: 'true' },
      // A client certificate from another CA.
      {
        TEMPORAL_ADDRESS: mtls.address,
        TEMPORAL_TLS_CLIENT_CERT_PATH: certificates.strangerCert,
        TEMPORAL_TLS_CLIENT_KEY_PATH: certificates.strangerKey,
      },
    ]) {
      const config = loadTemporalConfig({
        env: {
          ...env,
          TEMPORAL_TLS_SERVER_CA_CERT_PATH: certificates.caCert,
          TEMPORAL_TLS_SERVER_NAME: certificates.serverName,
        },
      });
      await expect(
        connectTemporal(config, { connectTimeoutMs: 3_000 }).then(async (connection) => {
          try {
            await connection.workflowService.getSystemInfo({});
          } finally {
            await connection.close();
          }
        }),
      ).rejects.toThrow();
    }
    expect(mtls.refused.length).toBeGreaterThan(refusedBefore);
  });

  it('sends the API key on every call of the CLI and its worker, over TLS by default', async () => {
    const env = {
      ...isolatedEnv(scratch),
      TEMPORAL_ADDRESS: apiKeyFront.address,
      TEMPORAL_API_KEY: 'wharf-test-key',
      // The front's certificate is from the test CA; no TEMPORAL_TLS: the API key turns TLS on.
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: certificates.caCert,
      TEMPORAL_TLS_SERVER_NAME: certificates.serverName,
    };
    const run = await wharf(
      ['run', 'swarm.yaml', '--json', '--data-dir', join(scratch, 'api-key-data')],
      scratch,
      env,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'completed' });

    const calls = apiKeyFront.calls;
    expect(calls.map((call) => call.path)).toEqual(
      expect.arrayContaining([
        '/temporal.api.workflowservice.v1.WorkflowService/StartWorkflowExecution',
        '/temporal.api.workflowservice.v1.WorkflowService/PollWorkflowTaskQueue',
        '/temporal.api.workflowservice.v1.WorkflowService/PollActivityTaskQueue',
      ]),
    );
    // The client (grpc-js) and the worker (Temporal's Rust core) both sent it, on every call.
    const agents = new Set(
      calls.map((call) => (call.userAgent?.startsWith('grpc-node-js') ? 'client' : 'worker')),
    );
    expect([...agents].sort()).toEqual(['client', 'worker']);
    expect(calls.filter((call) => call.authorization !== 'Bearer wharf-test-key')).toEqual([]);

    // With TLS turned off by hand, the same key cannot reach a TLS-only server: a server is
    // there, the handshake failed, and the message says so (a configuration to fix, exit 2).
    const plain = await wharf(['status', 'any-id'], scratch, { ...env, TEMPORAL_TLS: 'false' });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain(`a server answers at ${apiKeyFront.address} (namespace default, API key;`);
    expect(plain.stderr).toContain('does it expect TLS on, another certificate or an API key?');
    expect(plain.stderr).not.toContain('DEP0123');
  });
});
