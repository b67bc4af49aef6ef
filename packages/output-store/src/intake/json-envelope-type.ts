/**
 * Media type of the JSON envelope for small outputs. Any other type (including
 * `application/json`) is taken as the raw body and stored with that type.
 *
 * @example
 * ```ts
 * await fetch(`${url}/v1/outputs`, { method: 'POST', headers: { 'content-type': jsonEnvelopeType, authorization },
 *   body: JSON.stringify({ idempotencyKey: 'k1', content: { kind: 'text', text: 'hi' } }) });
 * ```
 */
export const jsonEnvelopeType = 'application/vnd.wharf.output+json';
