import { createHash } from 'node:crypto';

/** What {@link emitKey} derives a key from. */
export interface EmitKeyInput {
  /** `WHARF_EMIT_KEY`: the same for every retry of the spawn; absent outside a spawn. */
  readonly base: string | undefined;
  /** A key the caller chose (`--key`), scoped under the base. */
  readonly key?: string | undefined;
  /** The body, when it is known before sending: the key is derived from it and the metadata. */
  readonly body?: string | Uint8Array | undefined;
  readonly name?: string | undefined;
  readonly contentType?: string | undefined;
  /** Position of this EMIT among the process's EMITs, for bodies only known while streaming. */
  readonly sequence: number;
}

/**
 * The idempotency key of one EMIT. Inside a spawn (`base` set) keys are scoped by the base,
 * which Wharf keeps stable across retries: a chosen `key` becomes `<base>/key/<key>`, a known
 * body `<base>/sha256/<hash of name, type and body>`, a streamed one `<base>/seq/<n>` (its
 * position in this process). So a retried script that EMITs the same outputs again gets the
 * same refs instead of storing them twice. Outside a spawn: the chosen key, or undefined.
 *
 * @example
 * ```ts
 * emitKey({ base: 'wf/run/3/script', body: 'hi', name: 'a.txt', sequence: 0 }); // 'wf/run/3/script/sha256/…'
 * ```
 */
export function emitKey(input: EmitKeyInput): string | undefined {
  if (input.base === undefined || input.base === '') return input.key;
  if (input.key !== undefined) return `${input.base}/key/${input.key}`;
  if (input.body !== undefined) {
    const hash = createHash('sha256')
      .update(input.name ?? '')
      .update('\0')
      .update(input.contentType ?? '')
      .update('\0')
      .update(input.body)
      .digest('hex');
    return `${input.base}/sha256/${hash.slice(0, 40)}`;
  }
  return `${input.base}/seq/${input.sequence}`;
}
