// @wharf/runtime/worker: the activities, the plugin and the worker.

export {
  type ChildEnvironmentOptions,
  childEnvironment,
  isWharfCredential,
  PASS_ENV_VARIABLE,
  passEnvNames,
} from '../activities/child-env.js';
export { checkDataPlane, guardDataPlane } from '../activities/data-plane-guard.js';
export { modelSummarizer, SUMMARY_MAX_BYTES, summarizeStream } from '../activities/output-summary.js';
export { type SpawnCredentialsOptions, spawnCredentials } from '../activities/spawn-credentials.js';
export { installRootOf, wharfInstallPaths } from '../activities/wharf-install.js';
export {
  HOME_CREDENTIALS,
  SANDBOX_INTAKE_SOCKET,
  type SandboxStatus,
  WorkerSandbox,
  type WorkerSandboxOptions,
} from '../activities/worker-sandbox.js';
export { connectMcpServers, type McpServerConfig, type McpTools } from '../agent/mcp-tools.js';
export {
  type CollectGarbageOptions,
  collectGarbage,
  type GcReport,
  type RemovedOutput,
} from '../gc/collect-garbage.js';
export { type GcSchedule, type GcScheduleOptions, startGcSchedule } from '../gc/gc-schedule.js';
export {
  type ComposedWorker,
  type ComposedWorkerRun,
  type ComposeWorkerOptions,
  composeWorker,
  type IntakeLimits,
  type StartComposedWorkerOptions,
} from './compose-worker.js';
export { type ActivityDependencies, createActivities } from './create-activities.js';
export {
  createWharfWorker,
  type WharfWorkerOptions,
  type WharfWorkerPlacement,
} from './create-wharf-worker.js';
export { WharfPlugin, type WharfPluginOptions, wharfPlugin, workflowsPath } from './wharf-plugin.js';
export {
  BUILD_ID_VARIABLE,
  checkWorkerVersion,
  DEPLOYMENT_NAME_VARIABLE,
  MAX_VERSION_PART_LENGTH,
  pinnedDeploymentOptions,
  workerVersionFromEnv,
} from './worker-version.js';
export { WorkerVersionError, type WorkerVersionErrorCode } from './worker-version-error.js';
export { type WorkflowBuildIdOptions, workflowBuildId } from './workflow-build-id.js';
export {
  type CachedWorkflowBundle,
  cachedWorkflowBundle,
  type WorkflowBundleCacheOptions,
  workflowBundleCacheDir,
} from './workflow-bundle-cache.js';
