import { startEmbedded } from '@wharf/orchestrator/embedded';
import { CliError } from '../cli-error.js';
import type { CliIo } from '../output.js';

/** Options of {@link devCommand}. */
export interface DevOptions {
  dataDir: string;
  ui: boolean;
  address?: string;
}

/**
 * `wharf dev`: the embedded default — a Temporal dev server (unless one answers), the
 * intake server and a worker — until Ctrl-C, which stops everything cleanly.
 */
export async function devCommand(options: DevOptions, io: CliIo, until?: Promise<void>): Promise<void> {
  const embedded = await startEmbedded({
    dataDir: options.dataDir,
    ui: options.ui,
    // The shared queue: clients and `WharfClient` default to it (`wharf run` has a queue of its own).
    taskQueue: 'wharf',

    ...(options.address === undefined ? {} : { temporalAddress: options.address }),
    onProgress: (message) => io.err(`wharf: ${message}`),
  }).catch((error: Error) => {
    throw new CliError('UNREACHABLE', error.message, { cause: error });
  });
  io.out(
    [
      `Wharf dev is running (data in ${options.dataDir}/).`,
      `  Temporal:   ${embedded.address} (namespace ${embedded.namespace}, task queue ${embedded.taskQueue})`,
      ...(embedded.uiUrl === undefined ? [] : [`  Web UI:     ${embedded.uiUrl}`]),
      `  Intake:     ${embedded.intake.url}`,
      '  Run a swarm from another terminal: wharf run examples/repo-health.yaml --follow',
      'Press Ctrl-C to stop.',
    ].join('\n'),
  );
  const stopSignal =
    until ??
    new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
  await stopSignal;
  io.err('wharf: stopping…');
  await embedded.stop();
  io.err('wharf: stopped.');
}
