import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createIntakeServer, issueSpawnToken, SqliteOutputStore } from '@wharf/output-store';
import type { BenchRow } from '../harness.js';
import { quantile, withTempDir } from './shared.js';
import type { OutputStoreSizes } from './sizes.js';

const secret = 'benchmark-secret-with-at-least-32-bytes!';

/**
 * One intake scenario: the req/s row, latency quantiles of both servers, and the process CPU
 * per request of each side's best round (client and server share this process, so both sides
 * include the same client's cost).
 */
export interface HttpIntakeRow {
  row: BenchRow;
  ours: IntakeSide;
  baseline: IntakeSide;
}

/**
 * One side's best round: latency quantiles (ms), process CPU per request (µs; every thread)
 * and the main thread's share of it (µs; the event loop that serves and drives the POSTs).
 */
export interface IntakeSide {
  p50: number;
  p99: number;
  cpuMicros: number;
  mainThreadMicros: number;
}

/** Result of benchmark 3: one row per token scenario (see {@link httpIntake}). */
export interface HttpIntakeResult {
  rows: HttpIntakeRow[];
}

/**
 * One timed run: its wall time, process and main-thread CPU (µs) and each request's latency in
 * ms, ascending.
 */
interface Run {
  seconds: number;
  cpuMicros: number;
  mainThreadMicros: number;
  latencies: number[];
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
): Promise<Run> {
  const url = new URL(base);
  const agent = new Agent({ keepAlive: true, maxSockets: sizes.httpClients });
  const body = Buffer.alloc(1024, 'a');
  const latencies: number[] = [];
  let next = 0;
  const cpuBefore = process.cpuUsage();
  const threadBefore = process.threadCpuUsage();
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: sizes.httpClients }, async () => {
      while (next < sizes.httpPosts) {
        const index = next++;
        body.writeUInt32LE(index, 0);
        const sent = process.hrtime.bigint();
        const status = await post(agent, url, body, headersFor(index));
        latencies.push(Number(process.hrtime.bigint() - sent) / 1e6);
        // 201 only: a 200 would be a replayed key, not a new committed output.
        if (status !== 201) throw new Error(`intake answered ${status}, not 201`);
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  const thread = process.threadCpuUsage(threadBefore);
  agent.destroy();
  latencies.sort((left, right) => left - right);
  return {
    seconds,
    cpuMicros: cpu.user + cpu.system,
    mainThreadMicros: thread.user + thread.system,
    latencies,
  };
}

function summary(run: Run, posts: number): IntakeSide {
  return {
    p50: quantile(run.latencies, 0.5),
    p99: quantile(run.latencies, 0.99),
    cpuMicros: run.cpuMicros / posts,
    mainThreadMicros: run.mainThreadMicros / posts,
  };
}

/** Timed rounds per side; each side keeps its best round. */
const rounds = 3;

/**
 * Outputs EMITted per spawn token in the realistic scenario: a subagent sends every EMIT of
 * its run with the one token it was given.
 */
const emitsPerSpawn = 8;

/**
 * Benchmark 3: POSTs of 1 KiB to the intake (SQLite store) vs a bare node:http server that only
 * reads the body. Every intake POST is a new output (fresh idempotency key, 201) whose ref is
 * committed before the answer. Both servers listen throughout; after one untimed warm-up each,
 * the rounds alternate the sides and each keeps its best round (and that round's latencies), so
 * load from elsewhere on the shared cores falls on both alike. Two scenarios: every POST with
 * its own spawn's token (the worst case: each token verified in full), and spawns of
 * {@link emitsPerSpawn} EMITs each sending one token (how subagents use it). With `writerThread`
 * the intake's store commits in its writer thread instead of on the event loop.
 */
export async function httpIntake(sizes: OutputStoreSizes, writerThread: boolean): Promise<HttpIntakeResult> {
  return {
    rows: [
      await httpIntakeScenario(sizes, 1, writerThread),
      await httpIntakeScenario(sizes, emitsPerSpawn, writerThread),
    ],
  };
}

async function httpIntakeScenario(
  sizes: OutputStoreSizes,
  postsPerToken: number,
  writerThread: boolean,
): Promise<HttpIntakeRow> {
  return withTempDir(async (directory) => {
    const store = new SqliteOutputStore({
      path: join(directory, 'intake.db'),
      writerThread,
    });
    // Every client's POSTs are of one run, and up to all of them of one spawn token: this
    // measures throughput, so the per-spawn and per-run upload caps are as wide as the clients.
    const caps = { maxUploadsPerSpawn: sizes.httpClients, maxUploadsPerRun: sizes.httpClients };
    const server = await createIntakeServer({ store, secret, ...caps });
    const bare = createServer((incoming, outgoing) => {
      incoming.resume();
      incoming.on('end', () => {
        outgoing.writeHead(201, { 'content-type': 'application/json' });
        outgoing.end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
    try {
      const expiresAt = Date.now() + 3_600_000;
      const tokens = Array.from({ length: Math.ceil(sizes.httpPosts / postsPerToken) }, (_, index) =>
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
      const headersFor = (round: string) => (index: number) => ({
        authorization: `Bearer ${tokens[Math.floor(index / postsPerToken)] ?? ''}`,
        'idempotency-key': `${round}-post-${index}`,
        'content-type': 'application/octet-stream',
      });
      const warmUp = { ...sizes, httpPosts: Math.min(500, sizes.httpPosts) };
      await drive(server.url, warmUp, headersFor('warm'));
      await drive(bareUrl, warmUp, headersFor('warm'));
      let ours: Run | undefined;
      let baseline: Run | undefined;
      for (let round = 0; round < rounds; round++) {
        const sides = [
          async () => {
            const run = await drive(server.url, sizes, headersFor(`round-${round}`));
            if (!ours || run.seconds < ours.seconds) ours = run;
          },
          async () => {
            const run = await drive(bareUrl, sizes, headersFor(`round-${round}`));
            if (!baseline || run.seconds < baseline.seconds) baseline = run;
          },
        ];
        if (round % 2 === 1) sides.reverse();
        for (const side of sides) await side();
      }
      if (!ours || !baseline) throw new Error('no timed round ran');
      return {
        row: {
          name:
            postsPerToken === 1
              ? `POST ${sizes.httpPosts} x 1 KiB, ${sizes.httpClients} clients, a token per POST (req/s) vs bare node:http`
              : `POST ${sizes.httpPosts} x 1 KiB, ${sizes.httpClients} clients, ${postsPerToken} POSTs per spawn token (req/s) vs bare node:http`,
          ours: sizes.httpPosts / ours.seconds,
          baseline: sizes.httpPosts / baseline.seconds,
          target: 0.5,
        },
        ours: summary(ours, sizes.httpPosts),
        baseline: summary(baseline, sizes.httpPosts),
      };
    } finally {
      await server.close();
      await store.close();
      await new Promise<void>((resolve) => {
        bare.close(() => resolve());
        bare.closeAllConnections();
      });
    }
  });
}
