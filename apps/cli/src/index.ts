export { CliError, type CliErrorCode } from './cli-error.js';
