import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';

/**
 * Longest `IN_REFS` (or `WHARF_INPUTS`) value passed in the environment. Linux refuses to start
 * a process with one variable over 128 KiB (`E2BIG`); a join over ~2,000 outputs would pass it.
 */
export const IN_REFS_ENV_MAX_BYTES = 64 * 1024;

/**
 * The environment that names a script's input refs: `IN_REFS` (comma-separated output ids)
 * while it stays under {@link IN_REFS_ENV_MAX_BYTES}; past that, the ids go to
 * `<dir>/in-refs.json` (a JSON array of output ids), `WHARF_IN_REFS_FILE` names that file
 * and `IN_REFS` is left unset, so a script that reads it fails loudly instead of seeing no input.
 *
 * @example
 * ```ts
 * const env = await inRefsEnv(input.inRefs, spillDir);
 * // small: { IN_REFS: 'out_a,out_b' }   large: { WHARF_IN_REFS_FILE: '/…/in-refs.json' }
 * ```
 */
export async function inRefsEnv(
  inRefs: readonly string[],
  dir: string,
  maxBytes: number = IN_REFS_ENV_MAX_BYTES,
): Promise<Record<string, string>> {
  const joined = inRefs.join(',');
  if (Buffer.byteLength(joined) <= maxBytes) return { IN_REFS: joined };
  const file = resolve(dir, 'in-refs.json');
  await writeFile(file, JSON.stringify(inRefs));
  return { WHARF_IN_REFS_FILE: file };
}

/**
 * The environment that gives a script its resolved inputs: `WHARF_INPUTS` (their JSON) while it
 * stays under {@link IN_REFS_ENV_MAX_BYTES}; past that, the JSON goes to `<dir>/inputs.json`,
 * `WHARF_INPUTS_FILE` names that file and `WHARF_INPUTS` is left unset, so no input (a map item,
 * a loop's list of thousands of values) can keep the process from starting.
 *
 * @example
 * ```ts
 * const env = await inputsEnv(inputs, spillDir);
 * // small: { WHARF_INPUTS: '{"item":"a.ts","index":0}' }   large: { WHARF_INPUTS_FILE: '/…/inputs.json' }
 * ```
 */
export async function inputsEnv(
  inputs: Record<string, unknown>,
  dir: string,
  maxBytes: number = IN_REFS_ENV_MAX_BYTES,
): Promise<Record<string, string>> {
  const json = JSON.stringify(inputs);
  if (Buffer.byteLength(json) <= maxBytes) return { WHARF_INPUTS: json };
  const file = resolve(dir, 'inputs.json');
  await writeFile(file, json);
  return { WHARF_INPUTS_FILE: file };
}
