export { StdioLimitsError, type StdioLimitsErrorCode } from './stdio-limits-error.js';
