/**
 * The body the crash tests store under a key, derived from the key alone so the parent can
 * check what a killed child wrote: mostly large bodies (over the 1 KiB inline threshold, kept
 * as blobs), some inline, and every fifth key shares one of three bodies (one blob, several
 * rows). Self-contained (no imports), because the tests embed its source in the child's script.
 *
 * @example
 * ```ts
 * const worker = `const bodyFor = ${bodyFor.toString()};`;
 * ```
 */
export function bodyFor(key: string): Buffer {
  const { createHash: hash } = process.getBuiltinModule('node:crypto');
  const index = Number(key.split('-').at(-1));
  const seed = index % 5 === 0 ? `shared-${index % 3}` : key;
  const first = hash('sha256').update(seed).digest();
  const size = index % 7 === 3 ? 200 + (first[0] ?? 0) : 4096 + (first.readUInt16BE(0) % 28_000);
  const out = Buffer.alloc(size);
  let block = first;
  for (let offset = 0; offset < size; offset += block.length) {
    block.copy(out, offset);
    block = hash('sha256').update(block).digest();
  }
  return out;
}
