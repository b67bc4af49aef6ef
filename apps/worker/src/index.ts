export { WorkerConfigError, type WorkerConfigErrorCode } from './worker-config-error.js';
