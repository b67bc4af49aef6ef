import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createIntakeServer, issueSpawnToken, SqliteOutputStore } from '@wharf/output-store';
import type { BenchRow } from '../harness.js';
import { quantile, withTempDir } from './shared.js';
import type { OutputStoreSizes } from './sizes.js';

const secret = 'benchmark-secret-with-at-least-32-bytes!';

/** Result of benchmark 3: the req/s row and latency quantiles of both servers. */
export interface HttpIntakeResult {
  row: BenchRow;
  ours: { p50: number; p99: number };
  baseline: { p50: number; p99: number };
}

function post(agent: Agent, url: URL, body: Buffer, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const call = request(
      {
        agent,
        hostname: url.hostname,
        port: url.port,
        path: '/v1/outputs',
        method: 'POST',
        headers: { ...headers, 'content-length': String(body.length) },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    call.on('error', reject);
    call.end(body);
  });
}

async function drive(
  base: string,
  sizes: OutputStoreSizes,
  headersFor: (index: number) => Record<string, string>,
): Promise<{ seconds: number; latencies: number[] }> {
  const url = new URL(base);
  const agent = new Agent({ keepAlive: true, maxSockets: sizes.httpClients });
  const body = Buffer.alloc(1024, 'a');
  const latencies: number[] = [];
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: sizes.httpClients }, async () => {
      while (next < sizes.httpPosts) {
        const index = next++;
        body.writeUInt32LE(index, 0);
        const sent = process.hrtime.bigint();
        const status = await post(agent, url, body, headersFor(index));
        latencies.push(Number(process.hrtime.bigint() - sent) / 1e6);
        if (status >= 300) throw new Error(`intake answered ${status}`);
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  latencies.sort((left, right) => left - right);
  return { seconds, latencies };
}

/** Benchmark 3: POSTs of 1 KiB to the intake (SQLite store) vs a bare node:http server that only reads the body. */
export async function httpIntake(sizes: OutputStoreSizes): Promise<HttpIntakeResult> {
  return withTempDir(async (directory) => {
    const store = new SqliteOutputStore({ path: join(directory, 'intake.db') });
    const server = await createIntakeServer({ store, secret });
    const expiresAt = Date.now() + 3_600_000;
    const tokens = Array.from({ length: sizes.httpPosts }, (_, index) =>
      issueSpawnToken(
        {
          v: 1,
          ownerId: 'bench',
          runId: 'run',
          spawnId: `spawn-${index}`,
          readRefs: [],
          expiresAt,
          maxOutputs: 64,
          maxOutputBytes: 1 << 20,
        },
        secret,
      ),
    );
    const headers = (index: number) => ({
      authorization: `Bearer ${tokens[index] ?? ''}`,
      'idempotency-key': `post-${index}`,
      'content-type': 'application/octet-stream',
    });
    await drive(server.url, { ...sizes, httpPosts: Math.min(500, sizes.httpPosts) }, (index) => ({
      ...headers(index),
      'idempotency-key': `warm-${index}`,
    }));
    const ours = await drive(server.url, sizes, headers);
    await server.close();
    await store.close();

    const bare = createServer((incoming, outgoing) => {
      incoming.resume();
      incoming.on('end', () => {
        outgoing.writeHead(201, { 'content-type': 'application/json' });
        outgoing.end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
    await drive(bareUrl, { ...sizes, httpPosts: Math.min(500, sizes.httpPosts) }, headers);
    const baseline = await drive(bareUrl, sizes, headers);
    await new Promise<void>((resolve) => {
      bare.close(() => resolve());
      bare.closeAllConnections();
    });
    return {
      row: {
        name: `POST ${sizes.httpPosts} x 1 KiB, ${sizes.httpClients} clients (req/s) vs bare node:http`,
        ours: sizes.httpPosts / ours.seconds,
        baseline: sizes.httpPosts / baseline.seconds,
        target: 0.5,
      },
      ours: { p50: quantile(ours.latencies, 0.5), p99: quantile(ours.latencies, 0.99) },
      baseline: { p50: quantile(baseline.latencies, 0.5), p99: quantile(baseline.latencies, 0.99) },
    };
  });
}
