import { createReadStream } from 'node:fs';
import { link, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { clampUtf8 } from '@wharf/common';
import type { ArtifactStore } from '@wharf/evidence';
import { type OutputRef, type OutputStore, readBody, spawnEnv } from '@wharf/output-store';
import {
  captureProcess,
  type ProcessCapture,
  type ProcessGroupRegistry,
  type ProcessSpawner,
  resolveLimits,
  type StreamCapture,
  type Summarizer,
} from '@wharf/stdio-limits';
import type { SubagentInput, SubagentResult } from '@wharf/swarm';
import { captureLimitsOf, mergeSandboxSettings, wharfFailureTypes } from '@wharf/swarm';
import { emitScope, type SubagentIds } from './activity-identity.js';
import { heartbeatWhile } from './heartbeat-while.js';
import { inputsEnv, inRefsEnv } from './in-refs-env.js';
import type { MapItemReads } from './map-item-reads.js';
import { summarizeStream } from './output-summary.js';
import { recordWorker } from './record-worker.js';
import { spillDirectory } from './spill-directory.js';
import { expandedInRefs, instanceInputs } from './stored-lists.js';
import type { SubagentContexts } from './subagent-contexts.js';
import { subagentResult } from './subagent-result.js';
import { watchTemporalReach } from './temporal-reach.js';
import type { WorkerSandbox } from './worker-sandbox.js';

/** What {@link runScript} needs besides its input. */
export interface ScriptDependencies {
  store: OutputStore;
  artifacts: ArtifactStore;
  /**
   * Spill files live here until they are EMITted. The artifact store must take files handed
   * over from here (e.g. `FsArtifactStore`'s `spoolDirectories: [workDir]`); it refuses others.
   */
  workDir: string;
  /** Base environment of scripts, without Wharf's credentials (`childEnvironment`). */
  env: NodeJS.ProcessEnv;
  /** Extra environment for one spawn (intake URL and token, when an intake server runs). */
  spawnEnv?: (ids: SubagentIds, input: SubagentInput) => Record<string, string>;
  /** Where running scripts' process groups are recorded for a restarted worker to reap. */
  processGroups?: ProcessGroupRegistry;
  /** Starts the script (see `ActivityDependencies.spawner`); default: from the worker itself. */
  spawner?: ProcessSpawner;
  /** Confines the script (see {@link WorkerSandbox}); without one it runs unconfined. */
  sandbox?: WorkerSandbox;
  /**
   * Summarizes a stdout cut under `truncation_strategy: summary`; without one the summary says
   * that no summarizer is configured and keeps the first and last bytes.
   */
  summarizer?: Summarizer;
  /** Renders instances' contexts once for all that share one (see {@link SubagentContexts}). */
  contexts: SubagentContexts;
  /** Reads map items, a map's shared bodies once per worker (see {@link MapItemReads}). */
  mapItems: MapItemReads;
}

const PREVIEW_BYTES = 400;
/** How often a running script heartbeats its byte counts. */
const PROGRESS_INTERVAL_MS = 1_000;
/** Output below which a script that ended within the interval sends no last heartbeat. */
const QUIET_BYTES = 1024 * 1024;

/**
 * Runs a script task under its resolved stdio limits with the full output spilled to disk,
 * records the process as a tool call in the artifact store, EMITs the full stdout (and
 * stderr, when there is any) to the output store, and returns refs plus the compact payload.
 * The script gets a retry-stable `WHARF_EMIT_KEY`, so its own EMITs (`wharf emit`) are stored
 * once however often it is retried; they follow stdout and stderr in the result's outputs.
 * A retry after the EMIT (a worker died just after it) reuses what was stored instead of
 * running the script again, so every output is stored exactly once.
 */
export async function runScript(
  input: SubagentInput,
  ids: SubagentIds,
  dependencies: ScriptDependencies,
): Promise<SubagentResult> {
  const script = input.definition.script;
  if (script === undefined) throw new Error(`task ${input.task} has no script`);
  const { store, artifacts } = dependencies;
  const stdoutKey = `${ids.emitKeyPrefix}/0`;
  const stderrKey = `${ids.emitKeyPrefix}/1`;
  const summaryKey = `${ids.emitKeyPrefix}/summary`;

  const earlier = await store.findByIdempotencyKey(emitScope(ids), stdoutKey);
  if (earlier !== undefined) return resume(ids, dependencies, earlier, [stderrKey, summaryKey]);
  const cwd = await workingDirectory(input);

  const limits = resolveLimits(
    { limits: captureLimitsOf(input.limits), tasks: {} },
    { limits: captureLimitsOf(input.definition.limits) },
  );
  const context = Context.current();
  // Per attempt: an orphaned script of a killed attempt never shares files with its retry.
  const spillDir = spillDirectory(dependencies.workDir, ids.workerId, `attempt-${context.info.attempt}`);
  await mkdir(spillDir, { recursive: true, mode: 0o700 });
  // A stored map item and stored lists among the inputs, a loop dependency's manifest: read now.
  const inputs = await instanceInputs(input, store, {
    signal: context.cancellationSignal,
    itemReads: dependencies.mapItems,
  });
  const inRefs = await expandedInRefs(input, store, context.cancellationSignal);
  const smartContext = await dependencies.contexts.render(input.context);
  // Absolute: the script may run in another directory (workdir, its own cwd).
  const contextFile = smartContext === undefined ? undefined : resolve(spillDir, 'context.txt');
  if (contextFile !== undefined) await writeFile(contextFile, smartContext?.text ?? '');
  const startedAt = new Date();
  await recordWorker(artifacts, ids, { task: input.task, status: 'running', startedAt });

  // Its directory writable, its input files (in the spill directory) readable, the data directory not there at all.
  const workdir = cwd ?? process.cwd();
  const confined = dependencies.sandbox?.captureOption(
    mergeSandboxSettings(input.sandbox, input.definition.sandbox),
    {
      workdir,
      readable: [spillDir],
    },
  );
  const run = async () =>
    captureProcess(script.shell, {
      args: ['-c', script.content],
      ...(cwd === undefined ? {} : { cwd }),
      env: {
        ...dependencies.env,
        ...script.env,
        ...dependencies.spawnEnv?.(ids, { ...input, inRefs, inputs }),
        // A wide join's refs and large inputs go through files: one variable over 128 KiB fails the spawn.
        ...(await inRefsEnv(inRefs, spillDir)),
        ...(await inputsEnv(inputs, spillDir)),
        // Retry-stable: a retried script that EMITs the same outputs again gets the same refs.
        [spawnEnv.emitKey]: scriptEmitKey(ids),
        WHARF_TASK: input.task,
        WHARF_INSTANCE: String(input.instance),
        // The workflow id, under the variable name scripts already read.
        WHARF_RUN_ID: input.workflowId,
        ...(contextFile === undefined ? {} : { WHARF_CONTEXT_FILE: contextFile }),
        // In a sandbox the intake is a Unix socket.
        ...confined?.env,
      },
      ...(confined?.sandbox === undefined ? {} : { sandbox: confined.sandbox }),
      // The full output is always kept on disk so the store gets it whole, whatever the caps.
      limits: {
        ...limits,
        external_storage_dir: spillDir,
        external_storage_threshold: 0,
        compress_external: false,
      },
      spillName: 'output',
      ...(script.timeout_ms === undefined ? {} : { timeoutMs: script.timeout_ms }),
      signal: AbortSignal.any([context.cancellationSignal, reach.signal]),
      ...(dependencies.processGroups === undefined ? {} : { registry: dependencies.processGroups }),
      ...(dependencies.spawner === undefined ? {} : { spawner: dependencies.spawner }),
      progressIntervalMs: PROGRESS_INTERVAL_MS,
      // Every interval while the script runs. The capture's last report is skipped for a script
      // that ended within the interval with little output: its output is stored within
      // milliseconds, so nobody would see the heartbeat, yet the server would record it.
      onProgress: (progress) => {
        const bytes = progress.stdoutBytes + progress.stderrBytes;
        if (progress.elapsedMs < PROGRESS_INTERVAL_MS && bytes < QUIET_BYTES) return;
        context.heartbeat({ task: input.task, bytes });
      },
    });
  // A worker cut off from the server stops the script once the server gave its retry away.
  const reach = watchTemporalReach(context);
  let capture: ProcessCapture;
  try {
    capture = await (dependencies.sandbox?.using(workdir, run) ?? run());
  } finally {
    reach.stop();
  }
  const endedAt = new Date();
  if (reach.signal.aborted && !context.cancellationSignal.aborted) {
    await rm(spillDir, { recursive: true, force: true });
    throw ApplicationFailure.retryable(
      String((reach.signal.reason as Error).message),
      'WharfTemporalUnreachable',
    );
  }
  if (context.cancellationSignal.aborted) {
    // Temporal asked to cancel: the process is gone; report the cancellation, store nothing.
    await recordWorker(artifacts, ids, { task: input.task, status: 'cancelled', startedAt, endedAt });
    await rm(spillDir, { recursive: true, force: true });
    throw new CancelledFailure(`task ${input.task} cancelled after ${capture.durationMs} ms`);
  }
  // Storing a large output can take a while: keep heartbeating through it (none unless storing
  // lasts a third of the heartbeat timeout, so a trivial script costs the server no heartbeat).
  const bytes = capture.stdout.totalBytes + capture.stderr.totalBytes;
  return heartbeatWhile(
    context,
    async (): Promise<SubagentResult> => {
      const failed = capture.exitCode !== 0 || capture.timedOut || capture.signal !== null;

      // The process's stdout is tool call 1 and its stderr, if any, call 2: one run, one record each.
      const call = (seq: number, toolName: string) => ({
        seq,
        toolName,
        exitCode: capture.exitCode ?? (capture.signal === null ? null : 128),
        durationMs: capture.durationMs,
        stderrBytes: capture.stderr.totalBytes,
        startedAt: startedAt.toISOString(),
        endedAt: endedAt.toISOString(),
      });
      await artifacts.putToolCall(ids.workerId, call(1, 'script'), await artifactSource(capture.stdout));
      if (capture.stderr.totalBytes > 0) {
        await artifacts.putToolCall(ids.workerId, call(2, 'stderr'), await artifactSource(capture.stderr));
      }
      const summary = summarize(capture);
      await artifacts.putResult(ids.workerId, summary);
      await recordWorker(artifacts, ids, {
        task: input.task,
        status: failed ? 'failed' : 'succeeded',
        startedAt,
        endedAt,
        durationMs: capture.durationMs,
      });

      // EMIT last: once the stdout ref exists, everything above is complete.
      const producer = { ownerId: ids.ownerId, runId: ids.runId, spawnId: ids.jobId, agent: input.task };
      const labels = { task: input.task, instance: String(input.instance), stream: 'stderr' };
      const outputs: OutputRef[] = [];
      if (capture.stderr.totalBytes > 0) {
        await store.emit({
          producer,
          content: streamContent(capture.stderr),
          idempotencyKey: stderrKey,
          name: `${ids.jobId}.stderr.log`,
          contentType: 'text/plain',
          labels,
        });
      }
      // truncation_strategy: summary — the full stdout is stored as always; the summary is an output beside it.
      // A summarizer may call a model: the heartbeat around this whole step keeps it alive.
      const summaryText = await summarizeStream(capture.stdout, limits, {
        summarizer: dependencies.summarizer,
        taskId: input.task,
      });
      if (summaryText !== undefined) {
        await store.emit({
          producer,
          content: { kind: 'text', text: summaryText },
          idempotencyKey: summaryKey,
          name: `${ids.jobId}.summary.txt`,
          contentType: 'text/plain',
          labels: { ...labels, stream: 'summary' },
        });
      }
      outputs.push(
        await store.emit({
          producer,
          content: streamContent(capture.stdout),
          idempotencyKey: stdoutKey,
          name: `${ids.jobId}.stdout.log`,
          contentType: 'text/plain',
          labels: { ...labels, stream: 'stdout', exit: String(capture.exitCode ?? capture.signal ?? '') },
        }),
      );
      outputs.push(...(await storedByKeys(store, ids, [stderrKey, summaryKey])));
      outputs.push(...(await scriptEmits(store, ids)));
      await rm(spillDir, { recursive: true, force: true });

      return subagentResult(artifacts, ids, {
        failed,
        outputs,
        bytes,
        exitCode: capture.exitCode,
        signal: capture.signal,
        timedOut: capture.timedOut,
        durationMs: capture.durationMs,
        summary,
        preview:
          summaryText === undefined
            ? clip(capture.stdout.tail || capture.stdout.head, PREVIEW_BYTES)
            : clampUtf8(summaryText, PREVIEW_BYTES),
        stderrTail: clip(capture.stderr.tail || capture.stderr.head, PREVIEW_BYTES),
      });
    },
    { task: input.task, bytes },
  );
}

/**
 * Where a script runs: its `cwd` resolved against the swarm's workdir, or the workdir, or
 * (neither given) the worker's own directory. A directory missing on this worker is a
 * definition problem that no retry fixes.
 */
async function workingDirectory(input: SubagentInput): Promise<string | undefined> {
  const own = input.definition.script?.cwd;
  const directory = own === undefined ? input.workdir : resolve(input.workdir ?? process.cwd(), own);
  if (directory === undefined) return undefined;
  const found = await stat(directory).catch(() => undefined);
  if (found?.isDirectory() !== true) {
    throw ApplicationFailure.nonRetryable(
      `task ${input.task}: working directory ${directory} does not exist on worker ${hostname()}`,
      wharfFailureTypes.invalidDefinition,
    );
  }
  return directory;
}

/** A retry after the EMIT: rebuild the result from what the first attempt stored. */
async function resume(
  ids: SubagentIds,
  dependencies: ScriptDependencies,
  stdoutRef: OutputRef,
  [stderrKey, summaryKey]: [string, string],
): Promise<SubagentResult> {
  const { store, artifacts } = dependencies;
  const stdout = await store.stat(stdoutRef);
  const stderrRef = await store.findByIdempotencyKey(emitScope(ids), stderrKey);
  const stderr = stderrRef === undefined ? undefined : await store.stat(stderrRef);
  const worker = await artifacts.getWorker(ids.workerId);
  const calls = await artifacts.listToolCalls(ids.workerId);
  const exitCode = calls[0]?.exitCode ?? null;
  const failed = worker?.status === 'failed';
  const summary = (await artifacts.getResult(ids.workerId)) ?? '';
  const durationMs = worker?.durationMs ?? 0;
  const summaryRef = await store.findByIdempotencyKey(emitScope(ids), summaryKey);
  const preview =
    summaryRef === undefined
      ? await tailOf(store, stdoutRef, stdout.sizeBytes)
      : await headOf(store, summaryRef);
  const stderrTail =
    stderrRef === undefined || stderr === undefined ? '' : await tailOf(store, stderrRef, stderr.sizeBytes);
  return subagentResult(artifacts, ids, {
    failed,
    outputs: [
      ...(stderrRef === undefined ? [stdoutRef] : [stdoutRef, stderrRef]),
      ...(summaryRef === undefined ? [] : [summaryRef]),
      ...(await scriptEmits(store, ids)),
    ],
    bytes: stdout.sizeBytes + (stderr?.sizeBytes ?? 0),
    exitCode,
    durationMs,
    summary,
    preview,
    stderrTail,
    toolIndex: calls,
  });
}

/** Base of the keys of the script's own EMITs (`WHARF_EMIT_KEY`). */
function scriptEmitKey(ids: SubagentIds): string {
  return `${ids.emitKeyPrefix}/script`;
}

/** What the script EMITted itself (keys under its `WHARF_EMIT_KEY`), oldest first. */
async function scriptEmits(store: OutputStore, ids: SubagentIds): Promise<OutputRef[]> {
  const prefix = `${scriptEmitKey(ids)}/`;
  const refs: OutputRef[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({
      ownerId: ids.ownerId,
      runId: ids.runId,
      spawnId: ids.jobId,
      limit: 1000,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const record of page.records) {
      if (record.idempotencyKey.startsWith(prefix)) refs.push({ outId: record.outId });
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return refs;
}

/** The outputs stored under these keys (in this order), skipping keys nothing was stored under. */
async function storedByKeys(
  store: OutputStore,
  ids: SubagentIds,
  keys: readonly string[],
): Promise<OutputRef[]> {
  const refs: OutputRef[] = [];
  for (const key of keys) {
    const ref = await store.findByIdempotencyKey(emitScope(ids), key);
    if (ref !== undefined) refs.push(ref);
  }
  return refs;
}

/** The first {@link PREVIEW_BYTES} of a stored body, read as a range. */
async function headOf(store: OutputStore, ref: OutputRef): Promise<string> {
  const { sizeBytes } = await store.stat(ref);
  const { bytes } = await readBody(store, ref, { start: 0, end: Math.min(sizeBytes, PREVIEW_BYTES) });
  return clampUtf8(bytes.toString('utf8'), PREVIEW_BYTES);
}

/** The last {@link PREVIEW_BYTES} of a stored body, read as a range. */
async function tailOf(store: OutputStore, ref: OutputRef, sizeBytes: number): Promise<string> {
  const { bytes } = await readBody(store, ref, { start: Math.max(0, sizeBytes - PREVIEW_BYTES) });
  return clip(bytes.toString('utf8'), PREVIEW_BYTES);
}

/**
 * What the artifact store gets: the retained text, or a hard link to the spill file, handed
 * over from the work directory (the store moves or deletes it; the spill itself is still
 * needed for the EMIT). The spill is named as the link's other name: the store refuses hard
 * links it cannot account for.
 */
async function artifactSource(
  stream: StreamCapture,
): Promise<string | { filePath: string; hardLinks: string[] }> {
  if (stream.spill === null) return stream.text;
  const path = `${stream.spill.path}.artifact`;
  await link(stream.spill.path, path);
  return { filePath: path, hardLinks: [stream.spill.path] };
}

function streamContent(stream: StreamCapture) {
  return stream.spill === null
    ? ({ kind: 'text', text: stream.text } as const)
    : ({ kind: 'stream', stream: createReadStream(stream.spill.path) } as const);
}

function summarize(capture: ProcessCapture): string {
  const status = capture.timedOut
    ? `timed out after ${capture.durationMs} ms`
    : capture.signal !== null
      ? `killed by ${capture.signal}`
      : `exit ${capture.exitCode}`;
  return `${status}; ${capture.stdout.totalBytes} B stdout (${capture.stdout.totalLines} lines), ${capture.stderr.totalBytes} B stderr`;
}

function clip(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  // Keep the end; drop a partial character at the start.
  return bytes
    .subarray(bytes.length - maxBytes)
    .toString('utf8')
    .replace(/^\uFFFD+/, '');
}
