export { CliError, type CliErrorCode, exitCodes } from './cli-error.js';
export { type CliIo, processIo } from './output.js';
export { parseInputs, parseRange } from './parse-inputs.js';
export { createProgram, runCli } from './program.js';
