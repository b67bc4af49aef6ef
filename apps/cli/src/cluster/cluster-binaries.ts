import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ClusterError } from './cluster-error.js';

/**
 * The Temporal server and Web UI versions the cluster runs: the ones `deploy/versions.env` names
 * and the compose file pins (test/src/compose.test.ts checks all three agree).
 */
export const TEMPORAL_SERVER_VERSION = '1.32.2';
/** See {@link TEMPORAL_SERVER_VERSION}. */
export const TEMPORAL_UI_VERSION = '2.58.1';

/**
 * Where the binaries of the native cluster are.
 *
 * @example
 * ```ts
 * const { temporalServer } = findClusterBinaries(process.env);
 * ```
 */
export interface ClusterBinaries {
  readonly temporalServer: string;
  readonly sqlTool: string;
  /** The server module's `schema` folder (`postgresql/v12/...`). */
  readonly schemaDir: string;
  readonly uiServer: string;
  /** The UI server's root (`config/docker.yaml` inside). */
  readonly uiRoot: string;
  readonly versitygw: string;
  /** PostgreSQL's `initdb`, `postgres` and `psql`. */
  readonly postgresBindir: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Finds the cluster's binaries: each `WHARF_*` variable `.ci/toolchain.sh` exports
 * (`WHARF_TEMPORAL_SERVER`, `WHARF_TEMPORAL_SQL_TOOL`, `WHARF_TEMPORAL_SCHEMA_DIR`,
 * `WHARF_TEMPORAL_UI_SERVER`, `WHARF_VERSITYGW`, `WHARF_PG_BINDIR`), else the tools cache
 * (`WHARF_TOOLS_DIR`, default `~/.cache/wharf-tools`) at the pinned versions, else (PostgreSQL)
 * the Debian layout or `pg_config`. A missing one is `NOT_BUILT`, saying how to build it.
 *
 * @example
 * ```ts
 * const binaries = findClusterBinaries(process.env);
 * ```
 */
export function findClusterBinaries(env: Env): ClusterBinaries {
  const tools = env.WHARF_TOOLS_DIR || join(homedir(), '.cache', 'wharf-tools');
  const server = join(tools, `temporal-server-${TEMPORAL_SERVER_VERSION}`);
  const ui = join(tools, `temporal-ui-server-${TEMPORAL_UI_VERSION}`);
  const uiServer = env.WHARF_TEMPORAL_UI_SERVER || join(ui, 'temporal-ui-server');
  const binaries: ClusterBinaries = {
    temporalServer: env.WHARF_TEMPORAL_SERVER || join(server, 'temporal-server'),
    sqlTool: env.WHARF_TEMPORAL_SQL_TOOL || join(server, 'temporal-sql-tool'),
    schemaDir: env.WHARF_TEMPORAL_SCHEMA_DIR || join(server, 'schema'),
    uiServer,
    uiRoot: join(uiServer, '..'),
    versitygw: env.WHARF_VERSITYGW || join(tools, 'versitygw', 'versitygw'),
    postgresBindir: postgresBindir(env),
  };
  const missing = [
    ['the Temporal server', binaries.temporalServer, 'wharf_ensure_temporal_server'],
    ['temporal-sql-tool', binaries.sqlTool, 'wharf_ensure_temporal_server'],
    [
      "the Temporal server's schemas",
      join(binaries.schemaDir, 'postgresql', 'v12'),
      'wharf_ensure_temporal_server',
    ],
    ['the Temporal Web UI server', binaries.uiServer, 'wharf_ensure_temporal_ui_server'],
    [
      "the Web UI server's config",
      join(binaries.uiRoot, 'config', 'docker.yaml'),
      'wharf_ensure_temporal_ui_server',
    ],
    ['versitygw', binaries.versitygw, 'wharf_ensure_versitygw'],
    ['PostgreSQL (initdb)', join(binaries.postgresBindir, 'initdb'), 'wharf_ensure_postgres'],
  ].filter(([, path]) => !existsSync(path as string));
  if (missing.length > 0)
    throw new ClusterError(
      'NOT_BUILT',
      `not built: ${missing.map(([what, path]) => `${what} (${path})`).join(', ')}. ` +
        '`./wharf cluster up` builds them once; or run ' +
        `\`source .ci/toolchain.sh && ${[...new Set(missing.map(([, , fn]) => fn))].join(' && ')}\``,
    );
  return binaries;
}

function postgresBindir(env: Env): string {
  if (env.WHARF_PG_BINDIR) return env.WHARF_PG_BINDIR;
  try {
    const dir = execFileSync('pg_config', ['--bindir'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    if (existsSync(join(dir, 'initdb'))) return dir;
  } catch {
    // No pg_config: the Debian layout next.
  }
  const versions = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql')
        .filter((name) => /^\d+$/.test(name))
        .sort((left, right) => Number(right) - Number(left))
    : [];
  for (const version of versions) {
    const dir = `/usr/lib/postgresql/${version}/bin`;
    if (existsSync(join(dir, 'initdb'))) return dir;
  }
  return '/usr/lib/postgresql/bin';
}
