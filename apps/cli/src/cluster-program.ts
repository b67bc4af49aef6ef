import { checkWorkerVersion } from '@wharf/orchestrator/worker';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { integerIn } from './option-parsers.js';
import type { CliIo } from './output.js';

const port = (name: string) => integerIn(name, 1, 65_535);

/** A build id the Temporal server accepts, else a usage error naming what is wrong. */
function buildId(value: string): string {
  try {
    return checkWorkerVersion({ deploymentName: 'wharf', buildId: value }).buildId;
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/**
 * Adds `wharf cluster up|down|status|env` to `program`: the compose topology run natively
 * (docs/cluster.md), its state in `--dir` (default `$WHARF_CLUSTER_DIR`, else `.wharf-cluster`).
 *
 * @example
 * ```ts
 * addClusterCommand(program, processIo);
 * ```
 */
export function addClusterCommand(program: Command, io: CliIo): void {
  const cluster = program
    .command('cluster')
    .description(
      "Run the compose file's topology natively: PostgreSQL, S3 (versitygw), the Temporal server, its Web UI (with its codec server when payloads are encrypted) and Wharf workers",
    );
  const dirOption = () =>
    new Option('--dir <dir>', 'the cluster directory: pids, logs and data')
      .env('WHARF_CLUSTER_DIR')
      .default('.wharf-cluster');
  const act = (action: 'up' | 'down' | 'status' | 'env') => async (options: Record<string, unknown>) => {
    const { clusterCommand } = await import('./commands/cluster.js');
    await clusterCommand(action, { workers: 2, ...options } as never, io);
  };
  cluster
    .command('up')
    .description(
      'Start every process not running (builds nothing: ./wharf cluster up builds the server once)',
    )
    .addOption(dirOption())
    .addOption(
      new Option('--workers <n>', 'how many Wharf workers')
        .argParser(integerIn('--workers', 1, 64))
        .default(2),
    )
    .addOption(
      new Option(
        '--temporal-port <port>',
        "Temporal frontend; its other services listen at the default ports' offsets (-300 to +10), all under 32768 (Temporal's PostgreSQL schema keeps them as smallint)",
      ).argParser(integerIn('--temporal-port', 1324, 32_757)),
    )
    .addOption(new Option('--ui-port <port>', 'Temporal Web UI').argParser(port('--ui-port')))
    .addOption(new Option('--postgres-port <port>', 'PostgreSQL').argParser(port('--postgres-port')))
    .addOption(new Option('--s3-port <port>', 'the S3 service').argParser(port('--s3-port')))
    .addOption(
      new Option(
        '--codec-port <port>',
        'the codec server the Web UI decrypts through (started only with WHARF_CODEC_KEYS or WHARF_CODEC_KEYS_FILE; default 8234)',
      ).argParser(port('--codec-port')),
    )
    .addOption(
      new Option(
        '--worker-health-port <port>',
        "the first worker's health endpoint (the next ones follow)",
      ).argParser(port('--worker-health-port')),
    )
    .addOption(
      new Option(
        '--build-id <id>',
        "the workers' build id in the Worker Deployment `wharf` (default: the workflow code's version and bundle hash, e.g. 0.1.0-633aa3997e0f)",
      ).argParser(buildId),
    )
    .action(act('up'));
  cluster
    .command('down')
    .description('Stop every process (workers first, drained)')
    .addOption(dirOption())
    .action(act('down'));
  cluster
    .command('status')
    .description('Each process: running or stopped, its pid and log')
    .addOption(dirOption())
    .action(act('status'));
  cluster
    .command('env')
    .description(
      "Print the exports a shell needs to run swarms on the cluster's workers (Temporal address, data plane, codec endpoint)",
    )
    .addOption(dirOption())
    .action(act('env'));
}
