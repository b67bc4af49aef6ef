import { parseSwarm, type SwarmDefinition } from '@wharf/orchestrator';
import type { OutputStore } from '@wharf/output-store';

/**
 * The join's script in the orchestrator benchmarks: counts the out ids it was handed (in a
 * file past the inline limit, else in `IN_REFS`), so a run is checked to have passed every
 * item's ref on.
 */
export const COUNT_REFS_SCRIPT = `if [ -n "$WHARF_IN_REFS_FILE" ]; then grep -o "out_[A-Za-z0-9_-]*" "$WHARF_IN_REFS_FILE" | wc -l; else printf '%s' "$IN_REFS" | tr ',' '\\n' | grep -c .; fi`;

/**
 * The swarm the orchestrator benchmarks time: `list` prints the items (one a line) as a stored
 * list, `fan` maps `item` over it, `join` counts the refs of every instance.
 *
 * @example
 * ```ts
 * const definition = mapSwarm({ name: 'wide-map', list: 'seq 0 1999', item: 'echo "$WHARF_INSTANCE"' });
 * ```
 */
export function mapSwarm(options: { name: string; list: string; item: string }): SwarmDefinition {
  return parseSwarm(
    [
      `name: ${options.name}`,
      'tasks:',
      `  list: { script: { content: ${JSON.stringify(options.list)} }, output: †data.list }`,
      '  fan:',
      '    depends_on: [list]',
      '    loop: { type: map, over: †data.list }',
      `    script: { content: ${JSON.stringify(options.item)} }`,
      '  join:',
      '    depends_on: [fan]',
      `    script: { content: ${JSON.stringify(COUNT_REFS_SCRIPT)} }`,
      '',
    ].join('\n'),
  );
}

/**
 * How many refs the join of a finished benchmark swarm counted (0 when it stored nothing).
 *
 * @example
 * ```ts
 * const seen = await joinedRefs(store, result.outputs.join?.[0]);
 * ```
 */
export async function joinedRefs(store: OutputStore, joinOut: string | undefined): Promise<number> {
  if (joinOut === undefined) return 0;
  return Number(
    Buffer.from((await store.get({ outId: joinOut })).body)
      .toString('utf8')
      .trim(),
  );
}
