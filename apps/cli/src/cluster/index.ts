export {
  type ClusterBinaries,
  findClusterBinaries,
  TEMPORAL_SERVER_VERSION,
  TEMPORAL_UI_VERSION,
} from './cluster-binaries.js';
export {
  type ClusterConfig,
  type ClusterPorts,
  type ClusterVersion,
  clusterSecrets,
  codecEndpoint,
  codecEnvironment,
  codecKeysConfigured,
  codecKeyVariables,
  codecOidcVariables,
  dataPlaneEnvironment,
  defaultClusterPorts,
  type ProcessEnv,
  passedWorkerVariables,
  serviceEnvironments,
  temporalPorts,
  versionEnvironment,
  workerEnvironment,
  workerHome,
} from './cluster-config.js';
export { ClusterError, type ClusterErrorCode } from './cluster-error.js';
export { ClusterTopology, type ClusterTopologyOptions } from './cluster-topology.js';
export { freeClusterPorts } from './free-cluster-ports.js';
export type { ProcessState } from './managed-process.js';
