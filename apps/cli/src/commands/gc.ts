import { openDataDir } from '@wharf/orchestrator/embedded';
import { collectGarbage, type GcPolicy, safeId } from '@wharf/orchestrator/worker';
import { type CliIo, printJson } from '../output.js';

/** Options of `wharf gc`. */
export interface GcCommandOptions {
  dataDir: string;
  olderThan?: number;
  maxBytes?: number;
  run?: string;
  dryRun: boolean;
  json: boolean;
}

/**
 * `wharf gc`: applies a retention policy to the data directory's output store and removes the
 * evidence of runs left without outputs; prints every output it removed (or, with `--dry-run`,
 * would remove) and the totals. Outputs past their own expiry always go.
 */
export async function gcCommand(options: GcCommandOptions, io: CliIo): Promise<void> {
  const policy: GcPolicy = {
    ...(options.olderThan === undefined ? {} : { olderThanMs: options.olderThan }),
    ...(options.maxBytes === undefined ? {} : { maxTotalBytes: options.maxBytes }),
    ...(options.run === undefined ? {} : { runId: safeId(options.run) }),
  };
  const data = await openDataDir(options.dataDir);
  try {
    const report = await collectGarbage({
      store: data.store,
      artifacts: data.artifacts,
      policy,
      dryRun: options.dryRun,
    });
    if (options.json) return printJson(io, report);
    const verb = report.dryRun ? 'would remove' : 'removed';
    for (const output of report.outputs) {
      io.out(
        `${verb} ${output.outId}  ${String(output.sizeBytes).padStart(10)} B  ${output.runId}  ${output.reason} (stored ${output.createdAt})`,
      );
    }
    for (const run of report.runs) {
      io.out(`${verb} the evidence of run ${run.runId} (owner ${run.ownerId}, ${run.workers} worker(s))`);
    }
    io.out(
      `${report.dryRun ? 'Would remove' : 'Removed'} ${report.outputs.length} output(s), ${report.freedBytes} B; kept ${report.kept.outputs} output(s), ${report.kept.bytes} B.`,
    );
  } finally {
    await data.close();
  }
}
