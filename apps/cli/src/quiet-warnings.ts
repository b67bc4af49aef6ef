/**
 * Node warnings the `wharf` command keeps off stderr: DEP0123 (a TLS server name that is an IP
 * address: grpc-js sets one when `TEMPORAL_ADDRESS` is an IP with TLS on; Wharf reports what
 * failed in the handshake itself).
 */
export const QUIETED_WARNINGS: readonly string[] = ['DEP0123'];

/**
 * Makes `process.emitWarning` drop the warnings {@link QUIETED_WARNINGS} names; every other
 * warning is emitted as before. Returns the function that undoes it.
 *
 * @example
 * ```ts
 * quietWarnings(process);
 * ```
 */
export function quietWarnings(target: Pick<NodeJS.Process, 'emitWarning'>): () => void {
  const emit = target.emitWarning;
  const quieted = (warning: string | Error, ...rest: unknown[]): void => {
    const [second, third] = rest;
    const code =
      typeof second === 'object' && second !== null
        ? (second as { code?: unknown }).code
        : typeof third === 'string'
          ? third
          : (warning as { code?: unknown }).code;
    if (typeof code === 'string' && QUIETED_WARNINGS.includes(code)) return;
    (emit as (...args: unknown[]) => void).call(target, warning, ...rest);
  };
  target.emitWarning = quieted as NodeJS.Process['emitWarning'];
  return () => {
    target.emitWarning = emit;
  };
}
