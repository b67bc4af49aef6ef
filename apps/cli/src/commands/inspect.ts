import { EvidenceCompiler, isEvidenceRecord, type WorkerMetadata } from '@wharf/evidence';
import { safeId } from '@wharf/orchestrator/data-dir';
import { InvalidOutputEventError, type OutputRecord, streamPartLabel } from '@wharf/output-store';
import { clampRange } from '../clamp-range.js';
import { CliError } from '../cli-error.js';
import { evidenceInStore, evidenceLines, runEvidence, runsOf } from '../evidence-listing.js';
import { openData } from '../open-data.js';
import { type CliIo, printJson } from '../output.js';
import { outputReadCliError } from '../output-read-error.js';
import { parseRange } from '../parse-inputs.js';
import { rerunLineage } from '../rerun-lineage.js';

/**
 * `wharf outputs list`: outputs in the store (`WHARF_STORE`, else the data directory's), oldest
 * first, `limit` at a time from `cursor`. When the evidence shares the store, its records are
 * left out unless `evidence` is set, and a footer counts them; when it is kept beside the store
 * (the default data plane), `evidence` lists the workers and tool calls of the page's runs
 * after the outputs (with `--json`, as `kind: 'evidence'` entries after the records). Output
 * streams' chunks and markers (an agent step's answer as it was written) are left out too unless
 * `streams` is set: a stream's sealed whole is listed as any output.
 */
export async function outputsList(
  options: {
    dataDir: string;
    run?: string;
    json: boolean;
    limit: number;
    cursor?: string;
    evidence?: boolean;
    streams?: boolean;
  },
  io: CliIo,
): Promise<void> {
  const data = await openData(options.dataDir);
  try {
    const records: OutputRecord[] = [];
    let hidden = 0;
    let streamParts = 0;
    let cursor = options.cursor;
    // Evidence records left out can leave a page short: read on until it is full or the store ends.
    do {
      const page = await data.store.list({
        ...(options.run === undefined ? {} : { runId: safeId(options.run) }),
        ...(cursor === undefined ? {} : { cursor }),
        limit: options.limit - records.length,
      });
      for (const record of page.records) {
        if (options.evidence !== true && isEvidenceRecord(record)) hidden++;
        else if (options.streams !== true && isStreamPiece(record)) streamParts++;
        else records.push(record);
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined && records.length < options.limit);
    // Evidence kept beside the store (the default data plane's artifacts/) is not in the
    // listing: with --evidence, that of the runs on this page is read from there.
    const beside =
      options.evidence === true && !evidenceInStore(data.artifacts, data.store)
        ? await runEvidence(
            data.artifacts,
            runsOf(records, options.run === undefined ? undefined : safeId(options.run)),
          )
        : undefined;
    if (options.json) return printJson(io, beside === undefined ? records : [...records, ...beside]);
    if (records.length === 0) io.out('No outputs.');
    for (const record of records) {
      io.out(
        `${record.outId}  ${String(record.sizeBytes).padStart(10)} B  ${record.producer.runId}/${record.producer.spawnId}  ${record.name ?? ''}`,
      );
    }
    if (hidden > 0) io.out(`(${hidden} evidence record(s) left out; --evidence shows them)`);
    if (streamParts > 0)
      io.out(
        `(${streamParts} stream chunk(s) and marker(s) left out; --streams shows them, \`wharf outputs tail <str_…>\` reads a stream)`,
      );
    if (beside !== undefined) {
      io.out(
        beside.length === 0
          ? `(no evidence recorded for these runs in ${data.location.artifacts})`
          : `\nEvidence of these runs, in ${data.location.artifacts} (\`wharf evidence <run>\` shows what a supervisor reads):`,
      );
      for (const line of evidenceLines(beside)) io.out(line);
    }
    if (cursor !== undefined) io.out(`… more: --cursor ${cursor}`);
  } catch (error) {
    if (InvalidOutputEventError.isInstance(error))
      throw new CliError('USAGE', error.message, { cause: error });
    throw error;
  } finally {
    await data.close();
  }
}

/** A chunk or a marker of an output stream (not its sealed whole). */
function isStreamPiece(record: OutputRecord): boolean {
  const part = record.labels[streamPartLabel];
  return part !== undefined && part !== 'seal';
}

/**
 * `wharf outputs show <outId> [--range a-b]`: writes the body (or a byte range, cut at the
 * body's end) to stdout, as it is; on a terminal a body that does not end with a newline gets
 * one, so the prompt starts on its own line (piped or redirected, the bytes stay exact).
 */
export async function outputsShow(
  outId: string,
  options: { dataDir: string; range?: string; json: boolean },
  io: CliIo,
  write: (chunk: Uint8Array) => void = (chunk) => process.stdout.write(chunk),
): Promise<void> {
  const range = options.range === undefined ? undefined : parseRange(options.range);
  const data = await openData(options.dataDir);
  try {
    if (options.json) return printJson(io, await data.store.stat({ outId }));
    // A range past the end gives the bytes that exist (HTTP's rule): it needs the size first.
    const clamped =
      range === undefined
        ? undefined
        : clampRange(range, (await data.store.stat({ outId })).sizeBytes, outId);
    const body = await data.store.openBody({ outId }, clamped);
    let last: number | undefined;
    for await (const chunk of body.stream) {
      const bytes = chunk as Uint8Array;
      if (bytes.length > 0) last = bytes[bytes.length - 1];
      write(bytes);
    }
    if (io.isTTY && last !== undefined && last !== 0x0a) write(new Uint8Array([0x0a]));
  } catch (error) {
    throw outputReadCliError(error) ?? error;
  } finally {
    await data.close();
  }
}

/**
 * `wharf evidence <runId>`: exactly the evidence a supervisor of that run would see. A re-run's
 * supervisor also sees the evidence of the tasks it reused (their workers ran in the run it
 * re-ran, which its memo names): they are listed after its own, each marked reused. Temporal is
 * asked for that memo; when it does not answer, the run's own workers are shown and stderr
 * says what was left out.
 */
export async function evidenceCommand(
  runId: string,
  options: {
    dataDir: string;
    owner: string;
    budget: number;
    json: boolean;
    address?: string;
    namespace?: string;
  },
  io: CliIo,
): Promise<void> {
  const lineage = await rerunLineage(runId, {
    ...(options.address === undefined ? {} : { address: options.address }),
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
  });
  const data = await openData(options.dataDir);
  try {
    const ownerId = safeId(options.owner);
    const own = await data.artifacts.listWorkers({ ownerId, runId: safeId(runId) });
    // A reused task's worker: of the most recent run it comes from, for a job this run did not run.
    const jobs = new Set(own.map((worker) => worker.jobId));
    const reused: WorkerMetadata[] = [];
    for (const source of 'readsFrom' in lineage ? lineage.readsFrom : []) {
      for (const worker of await data.artifacts.listWorkers({ ownerId, runId: safeId(source) })) {
        if (jobs.has(worker.jobId)) continue;
        jobs.add(worker.jobId);
        reused.push(worker);
      }
    }
    const compiler = new EvidenceCompiler({ store: data.artifacts });
    const report = await compiler.compileWithReport({
      runId: safeId(runId),
      ownerId,
      budgetBytes: options.budget,
      readRuns: [...new Set(reused.map((worker) => worker.runId))],
      workerIds: [...own, ...reused].map((worker) => worker.workerId),
      keyBy: 'workerId',
    });
    const byWorker = new Map([...own, ...reused].map((worker) => [worker.workerId, worker]));
    const reusedFrom = new Map(reused.map((worker) => [worker.workerId, worker.runId]));
    if (options.json) {
      const entries = [...report.evidence].map(([workerId, text]) => [
        byWorker.get(workerId)?.jobId ?? workerId,
        text,
      ]);
      return printJson(io, {
        evidence: Object.fromEntries(entries),
        ...(reused.length === 0
          ? {}
          : { reused: Object.fromEntries(reused.map((worker) => [worker.jobId, worker.runId])) }),
        bytesRead: report.bytesRead,
        bytesEmitted: report.bytesEmitted,
      });
    }
    if (report.evidence.size === 0) throw new CliError('NOT_FOUND', `no workers recorded for run ${runId}`);
    for (const [workerId, text] of report.evidence) {
      const source = reusedFrom.get(workerId);
      if (source !== undefined) io.out(`(reused: ${byWorker.get(workerId)?.jobId} ran in ${source})`);
      io.out(text);
    }
    if ('unknown' in lineage)
      io.err(
        `wharf: Temporal did not say whether ${runId} is a re-run (${lineage.unknown}): the evidence of tasks it reused is not shown`,
      );
    io.err(
      `wharf: ${report.bytesEmitted} B of evidence (budget ${options.budget}), ${report.bytesRead} B read${reused.length === 0 ? '' : `; ${reused.length} reused`}`,
    );
  } finally {
    await data.close();
  }
}
