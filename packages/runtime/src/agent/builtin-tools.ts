import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  captureProcess,
  type LimitsInput,
  type ProcessGroupRegistry,
  type ProcessSpawner,
  resolveLimits,
} from '@wharf/stdio-limits';
import type { SandboxSettings } from '@wharf/swarm';
import { type ToolSet, tool } from 'ai';
import { z } from 'zod';
import type { WorkerSandbox } from '../activities/worker-sandbox.js';
import { openInWorkdir, readRange } from './safe-open.js';
import { toolOutput } from './tool-output.js';

/** What a built-in tool call runs with: the task's work directory, limits and spill place. */
export interface BuiltinToolContext {
  /** The agent's files live here; `read_file`/`write_file` and `shell` are confined to it. */
  workdir: string;
  /** The task's stdio limits (swarm limits with the task's own over them). */
  limits: LimitsInput;
  /** Most bytes of one output the model is shown. */
  budgetBytes: number;
  /** A directory of this call's own, inside the worker's work directory, for spill files. */
  spillDir: string;
  /** Environment of `shell`. */
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  processGroups?: ProcessGroupRegistry;
  /** Starts the command (default: from the worker itself). */
  spawner?: ProcessSpawner;
  /** Confines `shell` commands (see `WorkerSandbox`) under the task's `sandbox` settings. */
  sandbox?: { worker: WorkerSandbox; settings: SandboxSettings | undefined };
  /** Called with the bytes captured so far (for heartbeats). */
  onProgress?: (bytes: number) => void;
}

/**
 * How long one `http_request` may take, from the request until the last byte of the body
 * (headers included), when neither the call (`timeout_ms`, up to
 * {@link MAX_HTTP_REQUEST_TIMEOUT_MS}) nor the task's `limits.timeout_ms` says otherwise.
 */
export const HTTP_REQUEST_TIMEOUT_MS = 30_000;
/** Longest time limit an `http_request` call may ask for. */
export const MAX_HTTP_REQUEST_TIMEOUT_MS = 600_000;

const httpRequestInput = z.object({
  url: z.url(),
  method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']).default('GET'),
  headers: z.record(z.string(), z.string()).optional(),
  body: z.string().optional(),
  timeout_ms: z
    .number()
    .int()
    .positive()
    .max(MAX_HTTP_REQUEST_TIMEOUT_MS)
    .optional()
    .describe('Give up after this many milliseconds, headers and body included'),
});

/** Most bytes of an HTTP response body kept (the rest is reported as cut). */
const MAX_HTTP_BODY = 8 * 1024 * 1024;

/**
 * The built-in tools for one call: `shell` (bash under the task's stdio limits, output
 * spilled whole, the process group killed on cancel), `read_file` and `write_file` (regular
 * files of the work directory only, opened by {@link openInWorkdir}; `read_file` reads only the
 * byte range asked for, at most `budgetBytes`) and `http_request` (bounded body, and a time
 * limit from the request to the body's last byte: the call's `timeout_ms`, else the task's
 * `limits.timeout_ms`, else {@link HTTP_REQUEST_TIMEOUT_MS}; past it the call fails with what
 * arrived and a marker).
 *
 * @example
 * ```ts
 * const tools = builtinTools({ workdir, limits: {}, budgetBytes: 16_000, spillDir, env: process.env, signal });
 * ```
 */
export function builtinTools(context: BuiltinToolContext): ToolSet {
  return {
    shell: tool({
      description:
        'Run a bash command in the work directory. You see its exit code and its output, cut to a bounded size with exact markers; the full output is kept as evidence.',
      inputSchema: z.object({
        command: z.string().min(1).describe('The bash command line'),
        timeout_ms: z.number().int().positive().optional().describe('Kill it after this long'),
      }),
      execute: async ({ command, timeout_ms }) => runShell(context, command, timeout_ms),
    }),
    read_file: tool({
      description: 'Read a text file of the work directory (a byte range of it when it is large).',
      inputSchema: z.object({
        path: z.string().min(1).describe('Path relative to the work directory'),
        offset: z.number().int().nonnegative().optional(),
        length: z.number().int().positive().optional(),
      }),
      execute: async ({ path, offset, length }) => {
        const file = await openInWorkdir(context.workdir, path, 'read');
        try {
          const { size } = file;
          const start = Math.min(offset ?? 0, size);
          const wanted = Math.min(start + (length ?? context.budgetBytes), size, start + context.budgetBytes);
          // Only the range asked for is read, whatever the file's size.
          const bytes = await readRange(file.handle, start, wanted);
          const end = start + bytes.length;
          const body = bytes.toString('utf8');
          return toolOutput({ text: `${path} bytes ${start}-${end} of ${size}:\n${body}`, full: body });
        } finally {
          await file.handle.close();
        }
      },
    }),
    write_file: tool({
      description: 'Write (or append to) a text file of the work directory; missing directories are created.',
      inputSchema: z.object({
        path: z.string().min(1).describe('Path relative to the work directory'),
        content: z.string(),
        append: z.boolean().optional(),
      }),
      execute: async ({ path, content, append }) => {
        const file = await openInWorkdir(context.workdir, path, append === true ? 'append' : 'write');
        try {
          await file.handle.writeFile(content);
        } finally {
          await file.handle.close();
        }
        const bytes = Buffer.byteLength(content);
        return `${append === true ? 'appended' : 'wrote'} ${bytes} bytes to ${path}`;
      },
    }),
    http_request: tool({
      description: `Make an HTTP request. You see the status, headers and the body cut to a bounded size. It fails after timeout_ms (default ${defaultHttpTimeout(context)} ms) from the request to the last byte of the body.`,
      inputSchema: httpRequestInput,
      execute: async (input) => httpRequest(context, httpRequestInput.parse(input)),
    }),
  };
}

/** The task's `limits.timeout_ms` (which bounds its tool processes too), else the default. */
function defaultHttpTimeout(context: BuiltinToolContext): number {
  return context.limits.timeout_ms ?? HTTP_REQUEST_TIMEOUT_MS;
}

async function httpRequest(context: BuiltinToolContext, input: z.output<typeof httpRequestInput>) {
  const timeoutMs = input.timeout_ms ?? defaultHttpTimeout(context);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  const signal = AbortSignal.any([context.signal, deadline.signal]);
  const timedOut = () => deadline.signal.aborted && !context.signal.aborted;
  try {
    let response: Response;
    try {
      response = await fetch(input.url, {
        method: input.method,
        ...(input.headers === undefined ? {} : { headers: input.headers }),
        ...(input.body === undefined ? {} : { body: input.body }),
        signal,
      });
    } catch (error) {
      if (!timedOut()) throw error;
      const text = `${input.method} ${input.url}: timed out after ${timeoutMs} ms waiting for the response headers`;
      return toolOutput({ text, full: text, failed: true });
    }
    const { text, bytes, cut, stopped } = await readBounded(response, MAX_HTTP_BODY, signal);
    if (stopped && !timedOut()) throw signal.reason;
    const head = [
      `HTTP ${response.status} ${response.statusText}`,
      ...[...response.headers].map(([name, value]) => `${name}: ${value}`),
    ].join('\n');
    const note = stopped
      ? `\n--- [timed out after ${timeoutMs} ms reading the body: ${bytes} bytes read, the rest was not] ---`
      : cut
        ? `\n--- [body cut at ${bytes} bytes; the rest was not read] ---`
        : '';
    return toolOutput({
      text: `${head}\n\n${text}${note}`,
      full: `${head}\n\n${text}${note}`,
      failed: !response.ok || stopped,
    });
  } finally {
    clearTimeout(timer);
  }
}

async function runShell(context: BuiltinToolContext, command: string, timeoutMs?: number) {
  const limits = resolveLimits(undefined, { limits: context.limits });
  await mkdir(context.spillDir, { recursive: true, mode: 0o700 });
  const stderrBudget = Math.max(64, Math.floor(context.budgetBytes / 8));
  const stdoutBudget = Math.max(64, context.budgetBytes - stderrBudget - 512);
  const confined = context.sandbox?.worker.captureOption(context.sandbox.settings, {
    workdir: context.workdir,
  });
  const run = () =>
    captureProcess('bash', {
      args: ['-c', command],
      cwd: context.workdir,
      env: { ...context.env, ...confined?.env },
      ...(confined?.sandbox === undefined ? {} : { sandbox: confined.sandbox }),
      limits: {
        ...limits,
        // The model sees at most its budget (room left for the markers and headers); the full
        // streams are always spilled.
        max_stdout_bytes: Math.min(limits.max_stdout_bytes, stdoutBudget),
        max_stderr_bytes: Math.min(limits.max_stderr_bytes, stderrBudget),
        max_combined_bytes: Math.min(limits.max_combined_bytes, stdoutBudget + stderrBudget),
        external_storage_dir: context.spillDir,
        external_storage_threshold: 0,
        compress_external: false,
      },
      spillName: 'shell',
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      signal: context.signal,
      ...(context.processGroups === undefined ? {} : { registry: context.processGroups }),
      ...(context.spawner === undefined ? {} : { spawner: context.spawner }),
      onProgress: (progress) => context.onProgress?.(progress.stdoutBytes + progress.stderrBytes),
    });
  const capture = await (context.sandbox?.worker.using(context.workdir, run) ?? run());
  const status = capture.timedOut
    ? `timed out after ${capture.durationMs} ms`
    : capture.signal !== null
      ? `killed by ${capture.signal}`
      : `exit ${capture.exitCode}`;
  const text = [
    status,
    '--- stdout ---',
    capture.stdout.text,
    ...(capture.stderr.totalBytes > 0 ? ['--- stderr ---', capture.stderr.text] : []),
  ].join('\n');
  // The evidence is the whole stdout, then the whole stderr.
  const fullPath = join(context.spillDir, 'shell.full.log');
  const output = createWriteStream(fullPath);
  for (const stream of [capture.stdout, capture.stderr]) {
    if (stream.spill === null) {
      output.write(stream.text);
      continue;
    }
    await pipeline(createReadStream(stream.spill.path), output, { end: false });
  }
  await new Promise<void>((resolve, reject) =>
    output.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  return toolOutput({
    text,
    full: { filePath: fullPath, bytes: capture.stdout.totalBytes + capture.stderr.totalBytes },
    exitCode: capture.exitCode ?? (capture.signal === null ? null : 128),
    failed: capture.exitCode !== 0,
  });
}

/** The body up to `maxBytes`; what was read so far when `signal` stops the read (`stopped`). */
async function readBounded(
  response: Response,
  maxBytes: number,
  signal: AbortSignal,
): Promise<{ text: string; bytes: number; cut: boolean; stopped: boolean }> {
  if (response.body === null) return { text: '', bytes: 0, cut: false, stopped: false };
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let cut = false;
  let stopped = false;
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = maxBytes - bytes;
      if (value.byteLength > room) {
        chunks.push(value.subarray(0, room));
        bytes += room;
        cut = true;
        await reader.cancel();
        break;
      }
      chunks.push(value);
      bytes += value.byteLength;
    }
  } catch (error) {
    if (!signal.aborted) throw error;
    stopped = true;
  }
  return { text: Buffer.concat(chunks).toString('utf8'), bytes, cut, stopped };
}
