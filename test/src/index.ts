export { connectTestEnv, type TemporalTestEnv, taskQueueFor } from './temporal-env.js';
