import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { StorageFailureError } from '../errors.js';
import { freePort } from './free-port.js';

const run = promisify(execFile);

/**
 * Options of {@link startPostgresServer}.
 *
 * @example
 * ```ts
 * const options: PostgresServerOptions = { settings: { fsync: 'off' } };
 * ```
 */
export interface PostgresServerOptions {
  /**
   * Folder of `initdb`, `pg_ctl` and `postgres`. Default: `WHARF_PG_BINDIR`, else
   * `pg_config --bindir`, else the newest `/usr/lib/postgresql/<version>/bin`, else `PATH`.
   */
  readonly bindir?: string;
  /** Server settings passed as `-c name=value` (e.g. `fsync: 'off'` for throwaway data). */
  readonly settings?: Readonly<Record<string, string>>;
  /** Environment read for `WHARF_PG_BINDIR` and `PATH`, default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * A running throwaway PostgreSQL server.
 *
 * @example
 * ```ts
 * const server: PostgresServer = await startPostgresServer();
 * console.log(server.url); // postgresql://postgres@127.0.0.1:54012/postgres
 * ```
 */
export interface PostgresServer {
  /** Connection string of the `postgres` database as the `postgres` superuser (trust auth, loopback only). */
  readonly url: string;
  readonly port: number;
  /** Folder of the server's unix socket (inside its temp folder). */
  readonly socketDir: string;
  readonly dataDir: string;
  /** What `postgres --version` printed. */
  readonly version: string;
  /** Stops the server (fast shutdown) and deletes its folder. */
  stop(): Promise<void>;
}

async function hasInitdb(directory: string): Promise<boolean> {
  return existsSync(join(directory, 'initdb')) && existsSync(join(directory, 'pg_ctl'));
}

async function findBindir(options: PostgresServerOptions): Promise<string> {
  const env = options.env ?? process.env;
  // A folder named explicitly must hold the binaries: falling back elsewhere would hide the mistake.
  const explicit = options.bindir ?? (env.WHARF_PG_BINDIR || undefined);
  if (explicit !== undefined) {
    if (await hasInitdb(explicit)) return explicit;
    throw new StorageFailureError(
      `${options.bindir ? 'bindir' : 'WHARF_PG_BINDIR'} ${explicit} holds no initdb and pg_ctl`,
    );
  }
  const candidates: string[] = [];
  try {
    candidates.push((await run('pg_config', ['--bindir'], { env })).stdout.trim());
  } catch {
    // No pg_config on PATH: look in the Debian layout next.
  }
  if (existsSync('/usr/lib/postgresql')) {
    const versions = (await readdir('/usr/lib/postgresql'))
      .filter((name) => /^\d+$/.test(name))
      .sort((left, right) => Number(right) - Number(left));
    candidates.push(...versions.map((version) => `/usr/lib/postgresql/${version}/bin`));
  }
  candidates.push(...(env.PATH ?? '').split(':').filter((entry) => entry !== ''));
  for (const candidate of candidates) if (await hasInitdb(candidate)) return candidate;
  throw new StorageFailureError(
    'PostgreSQL server binaries (initdb, pg_ctl) not found: install them (Debian: apt-get install postgresql) ' +
      'or set WHARF_PG_BINDIR to their folder',
  );
}

/** How to run a server binary: directly, or as the `postgres` user when we are root. */
interface Runner {
  command(binary: string, args: readonly string[]): [string, string[]];
  owner?: { uid: number; gid: number };
}

async function runnerFor(env: NodeJS.ProcessEnv): Promise<Runner> {
  if (process.getuid?.() !== 0) return { command: (binary, args) => [binary, [...args]] };
  // PostgreSQL refuses to run as root: run it as the `postgres` system user the Debian
  // package creates, owning the server's temp folder.
  let uid: number;
  let gid: number;
  try {
    uid = Number((await run('id', ['-u', 'postgres'], { env })).stdout.trim());
    gid = Number((await run('id', ['-g', 'postgres'], { env })).stdout.trim());
  } catch (error) {
    throw new StorageFailureError(
      'running as root, PostgreSQL needs an unprivileged user to run as, and there is no `postgres` user ' +
        '(the Debian postgresql package creates it)',
      { cause: error },
    );
  }
  const runuser = findRunuser(env);
  return {
    command: (binary, args) => [runuser, ['-u', 'postgres', '--', binary, ...args]],
    owner: { uid, gid },
  };
}

/** `runuser` from PATH, else from the sbin folders a non-login PATH often lacks. */
function findRunuser(env: NodeJS.ProcessEnv): string {
  const folders = [...(env.PATH ?? '').split(':').filter((folder) => folder !== ''), '/usr/sbin', '/sbin'];
  for (const folder of folders) {
    const candidate = join(folder, 'runuser');
    if (existsSync(candidate)) return candidate;
  }
  throw new StorageFailureError(
    `running as root, PostgreSQL must run as the \`postgres\` user, and \`runuser\` (util-linux) was not found in ${folders.join(':')}`,
  );
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * A detached shell that outlives us only to clean up: once this process is gone (even
 * SIGKILLed, when no exit handler runs) it stops the server and deletes its folder.
 * Killed by a normal `stop()`.
 */
function startSentinel(runner: Runner, bindir: string, dataDir: string, base: string): () => void {
  const [command, argv] = runner.command(join(bindir, 'pg_ctl'), ['stop', '-D', dataDir, '-m', 'immediate']);
  const script =
    `while kill -0 ${process.pid} 2>/dev/null; do sleep 2; done; ` +
    `${[command, ...argv].map(shellQuote).join(' ')} >/dev/null 2>&1; rm -rf ${shellQuote(base)}`;
  const sentinel = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore', cwd: '/' });
  sentinel.unref();
  return () => {
    try {
      sentinel.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  };
}

async function logTail(path: string): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).split('\n').slice(-20).join('\n');
  } catch {
    return '(no server log)';
  }
}

/**
 * Starts a throwaway PostgreSQL server for tests and benchmarks: `initdb` into a fresh temp
 * folder, then `pg_ctl start` on a free loopback port with its unix socket inside that
 * folder. Run as root, the server runs as the `postgres` system user (PostgreSQL refuses
 * root). `stop()` shuts it down and deletes the folder; a process that exits without calling
 * it still stops the server on its way out, and one killed outright leaves a small detached
 * shell behind that does so within seconds.
 *
 * @example
 * ```ts
 * const server = await startPostgresServer();
 * const store = new PostgresOutputStore({ connectionString: server.url, blobs });
 * // …
 * await server.stop();
 * ```
 */
export async function startPostgresServer(options: PostgresServerOptions = {}): Promise<PostgresServer> {
  const env = options.env ?? process.env;
  const bindir = await findBindir(options);
  const runner = await runnerFor(env);
  const base = await mkdtemp(join(tmpdir(), 'wharf-postgres-'));
  const dataDir = join(base, 'data');
  const socketDir = join(base, 'socket');
  const logFile = join(base, 'server.log');
  const exec = (binary: string, args: readonly string[], timeout = 120_000) => {
    const [command, argv] = runner.command(join(bindir, binary), args);
    return run(command, argv, { cwd: base, env: { ...env, LC_ALL: 'C' }, timeout });
  };
  let started = false;
  const stopNow = () => {
    if (!started) return;
    started = false;
    const [command, argv] = runner.command(join(bindir, 'pg_ctl'), [
      'stop',
      '-D',
      dataDir,
      '-m',
      'immediate',
    ]);
    try {
      execFileSync(command, argv, { cwd: '/', stdio: 'ignore', timeout: 30_000 });
    } catch {
      // Already gone.
    }
  };
  try {
    await mkdir(socketDir);
    if (runner.owner) {
      for (const path of [base, socketDir]) await chown(path, runner.owner.uid, runner.owner.gid);
    }
    await exec('initdb', [
      '-D',
      dataDir,
      '-U',
      'postgres',
      '-A',
      'trust',
      '-E',
      'UTF8',
      '--no-locale',
      '--no-sync',
    ]);
    const version = (await exec('postgres', ['--version'])).stdout.trim();
    const settings = { listen_addresses: '127.0.0.1', ...options.settings };
    let lastError: unknown;
    for (let attempt = 0; attempt < 3; attempt++) {
      const port = await freePort();
      const serverOptions = [
        `-p ${port}`,
        `-k '${socketDir}'`,
        ...Object.entries(settings).map(([name, value]) => `-c ${name}='${value}'`),
      ].join(' ');
      try {
        started = true;
        process.once('exit', stopNow);
        await exec('pg_ctl', ['start', '-D', dataDir, '-w', '-t', '60', '-l', logFile, '-o', serverOptions]);
        const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
        const stopSentinel = startSentinel(runner, bindir, dataDir, base);
        return {
          url,
          port,
          socketDir,
          dataDir,
          version,
          stop: async () => {
            process.removeListener('exit', stopNow);
            stopSentinel();
            if (started) {
              started = false;
              await exec('pg_ctl', ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '60']).catch(() =>
                exec('pg_ctl', ['stop', '-D', dataDir, '-m', 'immediate', '-w']),
              );
            }
            await rm(base, { recursive: true, force: true });
          },
        };
      } catch (error) {
        process.removeListener('exit', stopNow);
        stopNow();
        lastError = error;
      }
    }
    throw new StorageFailureError(
      `PostgreSQL did not start from ${bindir}: ${String(lastError)}\n${await logTail(logFile)}`,
      { cause: lastError },
    );
  } catch (error) {
    stopNow();
    await rm(base, { recursive: true, force: true });
    if (StorageFailureError.isInstance(error)) throw error;
    throw new StorageFailureError(`cannot start PostgreSQL from ${bindir}: ${String(error)}`, {
      cause: error,
    });
  }
}
