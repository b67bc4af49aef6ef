import { openDataDir } from '@wharf/orchestrator/embedded';
import { collectGarbage, type GcPolicy, safeId } from '@wharf/orchestrator/worker';
import { defaultOrphanGraceMs } from '@wharf/output-store';
import { type CliIo, printJson } from '../output.js';

/** `3600000` → `1h`, `90000` → `90s`: the largest unit that divides the age. */
function formatAge(milliseconds: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
  ] as const) {
    if (milliseconds % size === 0) return `${milliseconds / size}${unit}`;
  }
  return `${milliseconds}ms`;
}

/** Options of `wharf gc`. */
export interface GcCommandOptions {
  dataDir: string;
  olderThan?: number;
  maxBytes?: number;
  run?: string;
  orphanGrace?: number;
  dryRun: boolean;
  json: boolean;
}

/**
 * `wharf gc`: applies a retention policy to the data directory's output store and removes the
 * evidence of runs left without outputs, then the bodies no output references (an EMIT killed
 * between upload and commit) older than `--orphan-grace` (default 1h); prints every output it
 * removed (or, with `--dry-run`, would remove) and the totals. Outputs past their own expiry
 * always go.
 */
export async function gcCommand(options: GcCommandOptions, io: CliIo): Promise<void> {
  const policy: GcPolicy = {
    ...(options.olderThan === undefined ? {} : { olderThanMs: options.olderThan }),
    ...(options.maxBytes === undefined ? {} : { maxTotalBytes: options.maxBytes }),
    ...(options.run === undefined ? {} : { runId: safeId(options.run) }),
    ...(options.orphanGrace === undefined ? {} : { orphanGraceMs: options.orphanGrace }),
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
    io.out(
      `${report.dryRun ? 'Would remove' : 'Removed'} ${report.orphans.removed} unreferenced bod${report.orphans.removed === 1 ? 'y' : 'ies'} (no output, older than ${formatAge(policy.orphanGraceMs ?? defaultOrphanGraceMs)}), ${report.orphans.freedBytes} B.`,
    );
  } finally {
    await data.close();
  }
}
