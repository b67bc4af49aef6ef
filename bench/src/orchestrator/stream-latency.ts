import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { wharfSearchAttributeKinds } from '@wharf/orchestrator';
import { startDevServer } from '@wharf/orchestrator/dev-server';
import { startProviderServer } from '@wharf/runtime/testing';
import type { Benchmark } from '../benchmark.js';
import { type BenchRow, formatTable } from '../harness.js';

/** A model writing at a steady rate: one token this often (50 tokens/s). */
const TOKEN_EVERY_MS = 20;
/** The p99 target, from the model server writing a token to `wharf run --follow` printing it. */
const P99_TARGET_MS = 250;

/** `w0001 `, `w0002 `, …: each token findable in the CLI's output. */
function tokens(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `w${String(index + 1).padStart(4, '0')} `);
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/**
 * `stream-latency`: a real `wharf run --follow` (the CLI in a process of its own, its in-process
 * worker, a dev server) runs one agent whose model is `openai-compatible:` against a local
 * server speaking the chat completions wire protocol over real server-sent events, one token
 * every 20 ms after a first-token delay. For each token: from the server writing its event to
 * the CLI's stdout carrying it (both clocks of this machine), through the provider package, the
 * step's stream into the store (flushed every 100 ms), the CLI's tail of it (every 50 ms) and its
 * output. Prints p50/p95/p99/max over every token (target p99 < 250 ms) and the first token's.
 */
export const streamLatencyBenchmark: Benchmark = {
  name: 'stream-latency',
  async run(options) {
    const count = Number(process.env.WHARF_BENCH_STREAM_TOKENS ?? (options.smoke ? 100 : 1_000));
    const firstTokenMs = Number(process.env.WHARF_BENCH_STREAM_FIRST_MS ?? 800);
    const words = tokens(count);
    const dir = await mkdtemp(join(tmpdir(), 'wharf-bench-stream-'));
    const provider = await startProviderServer(() => ({
      text: words.join(''),
      pieces: words,
      everyMs: TOKEN_EVERY_MS,
      firstAfterMs: firstTokenMs,
    }));
    const server = await startDevServer({ ui: false, searchAttributes: wharfSearchAttributeKinds });
    try {
      const swarm = join(dir, 'swarm.yaml');
      await writeFile(
        swarm,
        [
          'name: stream-latency',
          'agents:',
          `  writer: { model: "openai-compatible:${provider.url}/v1:steady" }`,
          'tasks:',
          '  answer: { agent: writer, prompt: "Write a long answer." }',
          '',
        ].join('\n'),
      );
      const main = join(
        dirname(createRequire(import.meta.url).resolve('@wharf/cli/package.json')),
        'dist/main.js',
      );
      const seen = new Map<string, number>();
      // The end of what came before: a token split across two reads is found in the second.
      let tail = '';
      const started = performance.now();
      const exit = await new Promise<number>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          [main, 'run', swarm, '--follow', '--address', server.address, '--data-dir', join(dir, 'data')],
          {
            cwd: dir,
            env: { ...process.env, OPENAI_COMPATIBLE_API_KEY: 'sk-bench', WHARF_SANDBOX: 'off' },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        child.stdout.setEncoding('utf8');
        child.stdout.on('data', (data: string) => {
          const at = performance.timeOrigin + performance.now();
          const text = tail + data;
          for (const match of text.matchAll(/w\d{4} /g)) if (!seen.has(match[0])) seen.set(match[0], at);
          tail = text.slice(-8);
        });
        let stderr = '';
        child.stderr.on('data', (data: Buffer) => {
          stderr = (stderr + data.toString()).slice(-4_000);
        });
        child.on('error', reject);
        child.on('close', (code) =>
          code === 0 ? resolve(0) : reject(new Error(`wharf run exited ${code}: ${stderr}`)),
        );
      });
      const seconds = (performance.now() - started) / 1000;
      const request = provider.requests.find((entry) => entry.stream);
      if (exit !== 0 || request === undefined) throw new Error('the model was never asked to stream');
      const written = new Map<string, number>();
      for (const event of request.written) {
        for (const match of event.data.matchAll(/w\d{4} /g))
          if (!written.has(match[0])) written.set(match[0], event.at);
      }
      const latencies: number[] = [];
      let missing = 0;
      for (const word of words) {
        const at = seen.get(word);
        const sent = written.get(word);
        if (at === undefined || sent === undefined) missing += 1;
        else latencies.push(at - sent);
      }
      const first = latencies[0] ?? Number.NaN;
      const sorted = [...latencies].sort((a, b) => a - b);
      const rows: BenchRow[] = [
        {
          name: 'token → terminal, p99',
          measured: percentile(sorted, 99),
          budget: P99_TARGET_MS,
          unit: 'ms',
        },
        { name: 'tokens not shown live', measured: missing, budget: 0, unit: 'tokens' },
      ];
      return [
        formatTable(
          `stream-latency: ${count} tokens at ${1000 / TOKEN_EVERY_MS}/s over SSE, wharf run --follow`,
          rows,
        ),
        `latency ms: p50 ${percentile(sorted, 50).toFixed(1)}, p95 ${percentile(sorted, 95).toFixed(1)}, p99 ${percentile(sorted, 99).toFixed(1)}, max ${(sorted.at(-1) ?? Number.NaN).toFixed(1)}; first token ${first.toFixed(1)} (the CLI learns the stream from the step's first heartbeat)`,
        `setup: openai-compatible provider package → local chat-completions SSE server (${firstTokenMs} ms to first token is the model's own; not counted), store flush 100 ms, CLI tail 50 ms, progress read 500 ms; run ${seconds.toFixed(1)} s in all`,
      ].join('\n');
    } finally {
      await provider.stop();
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
  },
};
