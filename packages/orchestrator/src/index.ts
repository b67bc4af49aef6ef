export { WharfOrchestratorError, type WharfOrchestratorErrorCode } from './orchestrator-error.js';
