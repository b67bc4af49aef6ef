// Pure: the `†input.*` values a running swarm is given (the `addInput` signal, the `addInputs`
// update). Runs inside the workflow sandbox; every date is a parameter.

import type { AddInputsRequest, AddInputsResult } from '../contracts/handler-contracts.js';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import type { SwarmState } from './swarm-state.js';

/**
 * Throws a typed error (code `INVALID_REQUEST`) naming the `†input.*` keys of `request` that
 * already hold a value, unless `request.replace`: a second value never silently replaces the
 * first. An empty request is refused too.
 *
 * @example
 * ```ts
 * checkInputs(state, { values: { region: 'eu' } }); // throws once †input.region is set
 * ```
 */
export function checkInputs(state: SwarmState, request: AddInputsRequest): void {
  const keys = Object.keys(request.values);
  if (keys.length === 0) throw new WharfOrchestratorError('INVALID_REQUEST', 'no input values given');
  if (request.replace === true) return;
  const set = keys.filter((key) => state.context.hasInput(key));
  if (set.length === 0) return;
  throw new WharfOrchestratorError(
    'INVALID_REQUEST',
    `${set.map((key) => `†input.${key}`).join(', ')} ${set.length === 1 ? 'is' : 'are'} already set; replace ${set.length === 1 ? 'it' : 'them'} explicitly (wharf input --replace, or addInputs with replace: true)`,
  );
}

/**
 * Adds `†input.*` values (see {@link checkInputs}) in the order given, `date` an ISO timestamp
 * of the workflow clock; returns which keys were new and which replaced a value. Tasks that
 * already read a replaced value keep what they read.
 *
 * @example
 * ```ts
 * addInputs(state, { values: { region: 'eu' } }, '2026-01-01T00:00:00.000Z'); // { added: ['region'], replaced: [] }
 * ```
 */
export function addInputs(state: SwarmState, request: AddInputsRequest, date: string): AddInputsResult {
  checkInputs(state, request);
  const result: AddInputsResult = { added: [], replaced: [] };
  for (const [key, value] of Object.entries(request.values)) {
    (state.context.hasInput(key) ? result.replaced : result.added).push(key);
    state.context.addInput(key, value, date);
  }
  return result;
}
