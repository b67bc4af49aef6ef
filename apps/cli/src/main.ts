#!/usr/bin/env -S node --max-semi-space-size=16 --max-old-space-size=1024
// `wharf run` hosts a worker in this process: the flags keep its memory near what it uses, as
// the worker's own bin does (see @wharf/worker's README, "Memory").
import { runCli } from './program.js';
import { quietWarnings } from './quiet-warnings.js';

quietWarnings(process);

process.exitCode = await runCli(process.argv.slice(2));
