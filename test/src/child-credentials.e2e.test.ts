import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSwarm } from '@wharf/orchestrator';
import { WharfClient } from '@wharf/orchestrator/client';
import { type DataDir, openDataDir } from '@wharf/orchestrator/embedded';
import { createWharfDataConverter } from '@wharf/orchestrator/node';
import {
  createPostgresDatabase,
  createS3Bucket,
  injectedS3Connection,
  type PostgresDatabase,
} from '@wharf/output-store/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectTestEnv, type TemporalTestEnv, taskQueueFor } from './temporal-env.js';

// A real worker process on a PostgreSQL + S3 data plane, with the credentials it uses (and a
// few more it might hold) in its environment. A script, an agent's shell and an MCP server the
// worker started each print their environment; none of those secrets may be printed or stored.
const workerMain = fileURLToPath(new URL('../../apps/worker/dist/main.js', import.meta.url));
const mcpServer = fileURLToPath(new URL('../fixtures/mcp-server.mjs', import.meta.url));
const BUCKET = 'wharf-child-credentials-e2e';

/** An OpenAI-compatible chat endpoint: first asks for the two tools, then answers `done`. */
function fakeModelServer(authorizations: string[]): Server {
  return createServer((request, response) => {
    authorizations.push(String(request.headers.authorization));
    let text = '';
    request.on('data', (chunk) => {
      text += String(chunk);
    });
    request.on('end', () => {
      const { messages } = JSON.parse(text) as { messages: { role: string }[] };
      const answered = messages.some((message) => message.role === 'tool');
      const call = (id: string, name: string, input: unknown) => ({
        id,
        type: 'function',
        function: { name, arguments: JSON.stringify(input) },
      });
      const message = answered
        ? { role: 'assistant', content: 'done' }
        : {
            role: 'assistant',
            content: null,
            tool_calls: [
              call('call-shell', 'shell', { command: 'env' }),
              call('call-mcp', 'envdump_environment', {}),
            ],
          };
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 0,
          model: 'fake',
          choices: [{ index: 0, message, finish_reason: answered ? 'stop' : 'tool_calls' }],
          usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
        }),
      );
    });
  });
}

describe("the data plane's credentials stay out of what a worker starts", () => {
  let temporal: TemporalTestEnv;
  let database: PostgresDatabase;
  let scratch: string;
  let model: Server;
  const authorizations: string[] = [];
  let worker: ChildProcess | undefined;
  let supervisor: DataDir | undefined;

  beforeAll(async () => {
    temporal = await connectTestEnv();
    database = await createPostgresDatabase(inject('postgresUrl'), 'child_credentials');
    await createS3Bucket(injectedS3Connection(), BUCKET);
    scratch = await mkdtemp(join(tmpdir(), 'wharf-child-credentials-'));
    model = fakeModelServer(authorizations);
    await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    if (worker !== undefined && worker.exitCode === null && worker.signalCode === null) {
      worker.kill('SIGTERM');
      await once(worker, 'exit');
    }
    await supervisor?.close();
    await new Promise((resolve) => model?.close(resolve));
    await temporal?.close();
    await database?.drop();
    await rm(scratch, { recursive: true, force: true });
  });

  it('a script, a shell and an MCP server see the worker environment without them; nothing stored holds them', async () => {
    const s3 = injectedS3Connection();
    // The test server trusts local connections: any password is accepted, and must be hidden.
    const store = new URL(database.url);
    store.password = 'pg-password-7f3a9c1e';
    const secrets = {
      storePassword: store.password,
      s3Secret: s3.secretAccessKey,
      modelKey: 'compatible-key-51d0e8a2',
      openai: 'sk-openai-9b2c4d6e',
      temporal: 'temporal-api-key-3e5f7a9b',
      intake: 'intake-secret-8c1d3e5f',
      pgpassword: 'pgpassword-2a4b6c8d',
    };
    const port = (model.address() as AddressInfo).port;
    const taskQueue = taskQueueFor('child-credentials');
    const dataDir = join(scratch, 'worker');
    const cwd = join(scratch, 'cwd');
    await mkdir(cwd, { recursive: true });
    const planeEnv = {
      WHARF_STORE: store.toString(),
      WHARF_BLOBS: `s3://${BUCKET}/outputs?endpoint=${s3.endpoint}`,
      AWS_ACCESS_KEY_ID: s3.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
      AWS_REGION: s3.region,
    };
    worker = spawn(process.execPath, [workerMain], {
      cwd,
      env: {
        ...process.env,
        ...planeEnv,
        TEMPORAL_ADDRESS: temporal.address,
        WHARF_TASK_QUEUE: taskQueue,
        WHARF_DATA_DIR: dataDir,
        WHARF_SHUTDOWN_GRACE_MS: '1000',
        // The script, the shell and the MCP server run sandboxed, as on a worker in production.
        WHARF_SANDBOX: 'required',
        OPENAI_COMPATIBLE_API_KEY: secrets.modelKey,
        OPENAI_API_KEY: secrets.openai,
        TEMPORAL_API_KEY: secrets.temporal,
        // The key is sent as it would be to Temporal Cloud, over the dev server's plain gRPC.
        TEMPORAL_TLS: 'false',
        WHARF_INTAKE_SECRET: secrets.intake,
        PGPASSWORD: secrets.pgpassword,
        // A copy of the store URL under a name Wharf does not know.
        DATABASE_URL: store.toString(),
        MY_SETTING: 'visible',
        DEPLOY_TOKEN: 'deploy-token-passed',
        WHARF_PASS_ENV: 'DEPLOY_TOKEN',
        WHARF_MCP_SERVERS: JSON.stringify({
          envdump: {
            command: process.execPath,
            args: [mcpServer, 'stdio', '--environment'],
            env: { SERVER_SETTING: 'given' },
          },
        }),
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

    supervisor = await openDataDir(join(scratch, 'client'), { env: planeEnv });
    const wharf = new WharfClient({
      connection: temporal.client.connection,
      taskQueue,
      dataConverter: createWharfDataConverter({ store: supervisor.store }),
    });
    const definition = parseSwarm(`
name: child-credentials
agents:
  prober:
    model: "openai-compatible:http://127.0.0.1:${port}/v1:fake"
    tools: [shell, envdump_environment]
tasks:
  dump:
    script: { content: env, env: { STAGE: e2e } }
  probe:
    agent: prober
    prompt: Print your environment.
`);
    const { workflowId } = await wharf.startSwarm(definition);
    const result = await wharf.result(workflowId);
    expect(result.status, JSON.stringify(result)).toBe('completed');
    // The worker itself still uses its credentials: the model got its key.
    expect(authorizations).toContain(`Bearer ${secrets.modelKey}`);
    const intakeSecret = (await readFile(join(dataDir, 'secret'), 'utf8')).trim();

    // Everything stored in the data plane: outputs, conversation records, evidence.
    const bodies: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await supervisor.store.list({ limit: 1000, ...(cursor === undefined ? {} : { cursor }) });
      for (const record of page.records) {
        bodies.push(Buffer.from((await supervisor.store.get({ outId: record.outId })).body).toString('utf8'));
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);

    const script = Buffer.from(
      (await supervisor.store.get({ outId: result.outputs.dump?.[0] ?? '' })).body,
    ).toString('utf8');
    const shell = bodies.find((body) => body.includes('_=/usr/bin/env') && !body.includes('STAGE=e2e'));
    const mcp = bodies.find((body) => body.includes('SERVER_SETTING=given'));
    for (const [who, printed] of Object.entries({ script, shell, mcp })) {
      expect(printed, `${who} printed its environment`).toContain('MY_SETTING=visible');
      expect(printed, `${who} got the passed variable`).toContain('DEPLOY_TOKEN=deploy-token-passed');
      expect(printed, who).toContain(`AWS_REGION=${s3.region}`);
      expect(printed, who).toContain(`WHARF_BLOBS=${planeEnv.WHARF_BLOBS}`);
      for (const name of ['WHARF_STORE=', 'AWS_SECRET_ACCESS_KEY=', 'AWS_ACCESS_KEY_ID=', 'DATABASE_URL=']) {
        expect(printed, who).not.toMatch(new RegExp(`^${name}`, 'm'));
      }
    }
    expect(script).toContain('STAGE=e2e');
    expect(script).toContain('WHARF_TASK=dump');
    for (const [name, secret] of Object.entries({ ...secrets, intakeSecret })) {
      const holders = bodies.filter((body) => body.includes(secret)).map((body) => body.slice(0, 80));
      expect(holders, `stored bodies holding ${name}`).toEqual([]);
    }
    expect(bodies.length).toBeGreaterThan(5);
  });
});
