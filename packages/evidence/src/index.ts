export { EvidenceError, type EvidenceErrorCode } from './evidence-error.js';
