import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowsPath } from './wharf-plugin.js';
import { cachedWorkflowBundle } from './workflow-bundle-cache.js';

/** Options of {@link workflowBuildId}. */
export interface WorkflowBuildIdOptions {
  /**
   * Where the workflow bundle is cached (see `cachedWorkflowBundle`), so that a second call with
   * the same Wharf build reads it instead of bundling again (`workflowBundleCacheDir()` is
   * Wharf's usual folder). Default: bundled in memory at every call.
   */
  cacheDir?: string;
}

/**
 * A build id for Wharf's workflow code: `<@wharf/workflows version>-<first 12 hex of the SHA-256
 * of its workflow bundle>`, e.g. `0.1.0-633aa3997e0f`. The bundle is what a worker runs (the
 * workflows, `@wharf/swarm`, the Temporal SDK's workflow runtime, each at the version installed),
 * so two builds get the same id exactly when their workflow code is the same: a release that
 * changes only activities, the CLI or docs keeps its version (its workers replace the old ones
 * like any restart), and one that changes workflow code gets a new one, whatever the checkout,
 * its commit or a dirty tree say. The version in front keeps the id readable. Bundling costs a
 * few seconds of CPU; with `cacheDir` only the first call pays them.
 *
 * @example
 * ```ts
 * const buildId = await workflowBuildId({ cacheDir: workflowBundleCacheDir() }); // '0.1.0-633aa3997e0f'
 * ```
 */
export async function workflowBuildId(options: WorkflowBuildIdOptions = {}): Promise<string> {
  const { code } =
    options.cacheDir === undefined
      ? await bundleWorkflowCode({ workflowsPath, logger: quiet })
      : await cachedWorkflowBundle({ dir: options.cacheDir, logger: quiet });
  const version = (createRequire(import.meta.url)('@wharf/workflows/package.json') as { version: string })
    .version;
  return `${version}-${createHash('sha256').update(code).digest('hex').slice(0, 12)}`;
}

const ignore = () => {};
/** The bundler's progress lines are not this function's to print. */
const quiet = { log: ignore, trace: ignore, debug: ignore, info: ignore, warn: ignore, error: ignore };
