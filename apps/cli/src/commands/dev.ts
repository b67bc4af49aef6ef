import { startEmbedded } from '@wharf/orchestrator/embedded';
import { createModelRegistry, hasOverrides } from '@wharf/orchestrator/node';
import { CliError } from '../cli-error.js';
import { type ModelOptions, modelChoice } from '../model-options.js';
import type { CliIo } from '../output.js';

/** Options of {@link devCommand}. */
export interface DevOptions extends ModelOptions {
  dataDir: string;
  ui: boolean;
  address?: string;
}

/**
 * `wharf dev`: the embedded default — a Temporal dev server (unless one answers), the
 * intake server and a worker — until Ctrl-C, which stops everything cleanly. With
 * `WHARF_CODEC_KEYS` / `WHARF_CODEC_KEYS_FILE` payloads are encrypted, and a dev server it starts
 * gets a codec server on loopback for its Web UI (`--ui-codec-endpoint`), printed for the CLI. `--model`
 * (else `WHARF_MODEL`) makes the worker run agents on other models than their definitions name.
 */
export async function devCommand(options: DevOptions, io: CliIo, until?: Promise<void>): Promise<void> {
  // The worker's own overrides: it runs every swarm's agents on them (as WHARF_MODEL does).
  const models = modelChoice(options, process.env);
  const embedded = await startEmbedded({
    dataDir: options.dataDir,
    ui: options.ui,
    // The shared queue: clients and `WharfClient` default to it (`wharf run` has a queue of its own).
    taskQueue: 'wharf',
    models: createModelRegistry(hasOverrides(models.overrides) ? { overrides: models.overrides } : {}),
    summarizer: models.summarizer ?? false,
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
      ...(embedded.codecUrl === undefined
        ? []
        : [
            `  Codec:      ${embedded.codecUrl} (the Web UI decrypts through it; for the CLI: export TEMPORAL_CODEC_ENDPOINT=${embedded.codecUrl})`,
          ]),
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
