export { intakeLimits, loadWorkerConfig, type WorkerConfig, workerEnvSchema } from './config.js';
export { type RunningWorker, startWorker } from './start-worker.js';
export { WorkerConfigError, type WorkerConfigErrorCode } from './worker-config-error.js';
