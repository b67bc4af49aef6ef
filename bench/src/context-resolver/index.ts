import {
  applyOutput,
  type Call,
  ContextLog,
  type ContextMessage,
  type Resolution,
  scanResolve,
} from '@wharf/context-resolver';
import type { Benchmark } from '../benchmark.js';
import { measurePair } from '../channels/pair.js';
import { type BenchRow, formatTable, measure } from '../harness.js';
import { buildMessages, buildQueries, type ResolverWorkload } from './workload.js';

const full: ResolverWorkload = {
  messages: 1_000_000,
  paths: 10_000,
  resolutions: 100_000,
  naiveResolutions: 100,
};
const smoke: ResolverWorkload = { messages: 20_000, paths: 1_000, resolutions: 2_000, naiveResolutions: 50 };

/**
 * Read-time resolution with the path index against a naive newest → oldest scan of the whole
 * context, and the cost of appending with the index kept against a bare array push.
 */
export const contextResolverBenchmark: Benchmark = {
  name: 'context-resolver',
  async run(options) {
    const workload = options.smoke ? smoke : full;
    const messages = buildMessages(workload);
    const log = new ContextLog(messages);
    const queries = buildQueries(workload, workload.resolutions);
    const naiveQueries = queries.slice(0, workload.naiveResolutions);
    for (const query of naiveQueries) {
      const indexed = JSON.stringify(log.resolve(query));
      const naive = JSON.stringify(scanResolve(messages, query));
      if (indexed !== naive)
        throw new Error(`indexed and naive resolution disagree on ${query.path.join('.')}`);
    }
    let sink = 0;
    const consume = (resolution: Resolution) => {
      if (resolution.found) sink++;
    };
    const indexed = await measure(queries.length, () => {
      for (const query of queries) consume(log.resolve(query));
    });
    const naive = await measure(
      naiveQueries.length,
      () => {
        for (const query of naiveQueries) consume(scanResolve(messages, query));
      },
      1,
    );

    // Ours and the baseline alternate, each keeping its best round, so load on the shared
    // machine falls on both sides alike (they used to run one after the other).
    const rounds = options.smoke ? 2 : 5;
    const append = await measurePair(messages.length, {
      rounds,
      ours: () => {
        const fresh = new ContextLog();
        for (const message of messages) fresh.append(message);
        if (fresh.length !== messages.length) throw new Error('an append was lost');
      },
      baseline: () => {
        const fresh: ContextMessage[] = [];
        for (const message of messages) fresh.push(message);
        if (fresh.length !== messages.length) throw new Error('a push was lost');
      },
    });

    const writes = Math.min(messages.length, options.smoke ? 5_000 : 100_000);
    const calls: Call[] = messages.slice(0, writes).map((message) => ({
      _tool: 'bench',
      _outputPath: `†data.${message._path}`,
      ...(message._outputMethod === undefined ? {} : { _outputMethod: message._outputMethod }),
    }));
    const results = messages.slice(0, writes).map((message) => {
      const [group, field] = (message._path ?? '').split('.') as [string, string];
      return (message.data as Record<string, Record<string, unknown>>)[group]?.[field];
    });
    const date = '2025-10-26T12:00:00Z';
    const output = await measurePair(writes, {
      rounds,
      ours: () => {
        const fresh = new ContextLog();
        for (let index = 0; index < writes; index++)
          applyOutput(fresh, calls[index] as Call, results[index], { date });
      },
      baseline: () => {
        const fresh: ContextMessage[] = [];
        for (let index = 0; index < writes; index++)
          applyOutput(fresh, calls[index] as Call, results[index], { date });
      },
    });
    if (sink < 0) throw new Error('unreachable');

    const rows: BenchRow[] = [
      {
        name: `resolve 1 path in ${workload.messages} msgs / ${workload.paths} paths: index vs naive scan`,
        ours: indexed.opsPerSecond,
        baseline: naive.opsPerSecond,
        target: 100,
      },
      {
        name: 'applyOutput: into ContextLog (indexed) vs into a plain array',
        ...output,
        target: 0.5,
      },
      {
        name: 'append prebuilt message: ContextLog.append vs bare Array.push',
        ...append,
        target: 0.5,
      },
    ];
    return formatTable('context-resolver', rows);
  },
};
