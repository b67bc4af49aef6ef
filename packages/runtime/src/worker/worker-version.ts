import type { WorkerDeploymentVersion } from '@temporalio/common';
import type { WorkerDeploymentOptions } from '@temporalio/worker';
import { z } from 'zod';
import { WorkerVersionError } from './worker-version-error.js';

/** The variable naming a worker's Worker Deployment (Wharf's is `wharf`). */
export const DEPLOYMENT_NAME_VARIABLE = 'WHARF_DEPLOYMENT_NAME';
/** The variable naming a worker's build: one per release of its workflow code. */
export const BUILD_ID_VARIABLE = 'WHARF_BUILD_ID';

/**
 * Longest deployment name or build id: the server keeps both in one workflow id of
 * `limit.maxIDLength` (255 in deploy/dynamicconfig/wharf.yaml) after a 39-character prefix.
 */
export const MAX_VERSION_PART_LENGTH = 108;

const part = (what: string) =>
  z
    .string()
    .min(1, `${what} is empty`)
    .max(MAX_VERSION_PART_LENGTH, `${what} is longer than ${MAX_VERSION_PART_LENGTH} characters`)
    .refine((value) => value.trim() === value, `${what} starts or ends with white space`)
    .refine((value) => !value.startsWith('__'), `${what} starts with "__" (reserved by Temporal)`);

const versionSchema = z.object({
  deploymentName: part('the deployment name').refine(
    (value) => !value.includes('.') && !value.includes(':'),
    'the deployment name contains "." or ":"',
  ),
  buildId: part('the build id'),
});

/**
 * The deployment version `version` checked as the Temporal server checks it (`INVALID_VERSION`
 * names the part at fault), so a worker refuses a bad one before it polls.
 *
 * @example
 * ```ts
 * const version = checkWorkerVersion({ deploymentName: 'wharf', buildId: '0.1.0-3fa2c9d1e0ab' });
 * ```
 */
export function checkWorkerVersion(version: WorkerDeploymentVersion): WorkerDeploymentVersion {
  const parsed = versionSchema.safeParse(version);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const variable = issue?.path[0] === 'buildId' ? BUILD_ID_VARIABLE : DEPLOYMENT_NAME_VARIABLE;
  throw new WorkerVersionError('INVALID_VERSION', `${issue?.message ?? 'invalid version'}`, [variable], {
    cause: parsed.error,
  });
}

/**
 * The deployment version `WHARF_DEPLOYMENT_NAME` and `WHARF_BUILD_ID` give, or undefined when
 * neither is set (empty counts as unset): the worker then runs unversioned. One without the
 * other is `INCOMPLETE_VERSION`; a value the server would refuse `INVALID_VERSION`.
 *
 * @example
 * ```ts
 * workerVersionFromEnv({ WHARF_DEPLOYMENT_NAME: 'wharf', WHARF_BUILD_ID: '0.1.0-3fa2c9d1e0ab' });
 * // { deploymentName: 'wharf', buildId: '0.1.0-3fa2c9d1e0ab' }
 * ```
 */
export function workerVersionFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): WorkerDeploymentVersion | undefined {
  const deploymentName = env[DEPLOYMENT_NAME_VARIABLE] || undefined;
  const buildId = env[BUILD_ID_VARIABLE] || undefined;
  if (deploymentName === undefined && buildId === undefined) return undefined;
  if (deploymentName === undefined)
    throw new WorkerVersionError(
      'INCOMPLETE_VERSION',
      `${BUILD_ID_VARIABLE} is set without ${DEPLOYMENT_NAME_VARIABLE}: a build id is a version of a deployment (set both, or neither to run unversioned)`,
      [BUILD_ID_VARIABLE],
    );
  if (buildId === undefined)
    throw new WorkerVersionError(
      'INCOMPLETE_VERSION',
      `${DEPLOYMENT_NAME_VARIABLE} is set without ${BUILD_ID_VARIABLE}: each release of the workflow code needs a build id of its own (set both, or neither to run unversioned)`,
      [DEPLOYMENT_NAME_VARIABLE],
    );
  return checkWorkerVersion({ deploymentName, buildId });
}

/**
 * Temporal's `workerDeploymentOptions` for a Wharf worker of `version`: Worker Versioning on,
 * every workflow PINNED to the version it started on (a swarm, its agent tasks, its supervisor
 * and its continue-as-new runs finish on the code they started with; docs/architecture.md,
 * "Changing workflow code").
 *
 * @example
 * ```ts
 * const worker = await Worker.create({ ..., workerDeploymentOptions: pinnedDeploymentOptions({ deploymentName: 'wharf', buildId: 'b42' }) });
 * ```
 */
export function pinnedDeploymentOptions(version: WorkerDeploymentVersion): WorkerDeploymentOptions {
  return {
    version: checkWorkerVersion(version),
    useWorkerVersioning: true,
    defaultVersioningBehavior: 'PINNED',
  };
}
