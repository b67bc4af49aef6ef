export {
  type CodecServerConfig,
  type CodecServiceAuth,
  codecServerEnvSchema,
  codecServiceAuth,
  loadCodecServerConfig,
} from './codec-config.js';
export { intakeLimits, loadWorkerConfig, type WorkerConfig, workerEnvSchema } from './config.js';
export { type RunningCodecService, startCodecService } from './start-codec-service.js';
export { type RunningWorker, startWorker } from './start-worker.js';
export { WorkerConfigError, type WorkerConfigErrorCode } from './worker-config-error.js';
