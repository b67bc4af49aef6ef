import type { SubagentInput } from '@wharf/swarm';
import { isStoredListValue } from '@wharf/swarm';

/** Most characters of a map item shown in an agent's prompt; the rest is cut, saying how much. */
export const PROMPT_ITEM_CHARS = 16_000;

/**
 * The task prompt of an agent: its prompt (or description); for a loop instance, which instance
 * it is and (a map loop) its `item` and `index`; its other inputs, its context and IN_REFS. A
 * stored list (a wide loop's outputs, among the inputs or IN_REFS) is named by its manifest,
 * which the agent reads with `read_input`.
 *
 * @example
 * ```ts
 * const prompt = agentPrompt({ ...input, inputs: { item: 'src/a.ts', index: 3 }, loopTotal: 5000 }, undefined);
 * // '…\n\nYour item (index 3 of 5000): src/a.ts\n…'
 * ```
 */
export function agentPrompt(input: SubagentInput, context: string | undefined): string {
  const lines = [input.definition.prompt ?? input.definition.description ?? `Do the task "${input.task}".`];
  const { item, index, ...others } = input.inputs;
  const map = input.definition.loop?.type === 'map';
  if (map) {
    const of = input.loopTotal === undefined ? '' : ` of ${input.loopTotal}`;
    lines.push('', `Your item (index ${String(index ?? input.instance)}${of}): ${itemText(item)}`);
  } else if (input.loopTotal !== undefined) {
    lines.push('', `You are instance ${input.instance} of ${input.loopTotal} of task ${input.task}.`);
  }
  const rest = map ? others : input.inputs;
  if (Object.keys(rest).length > 0) lines.push('', `Inputs: ${JSON.stringify(rest)}`);
  const lists = Object.entries(rest).filter(([, value]) => isStoredListValue(value));
  if (lists.length > 0)
    lines.push(
      '',
      `Inputs stored as lists (a $manifest: read it with read_input; it names chunks of one JSON record per instance, each readable the same way): ${lists.map(([key]) => key).join(', ')}`,
    );
  if (context !== undefined && input.context !== undefined) {
    const ids = input.context.entries.map((entry) => `${entry.taskId}=${entry.outId}`).join(', ');
    lines.push('', `Outputs of earlier tasks (read one whole with read_input: ${ids}):`, context);
  }
  if (input.inRefs.length > 0) lines.push('', `IN_REFS (read with read_input): ${input.inRefs.join(', ')}`);
  if (input.inManifests !== undefined && input.inManifests.length > 0)
    lines.push(
      '',
      `More IN_REFS, stored as manifests (read with read_input: each names chunks of one JSON record per instance, with its outIds): ${input.inManifests.join(', ')}`,
    );
  lines.push('', 'Hand in your output with the emit tool, then answer with a one-line summary.');
  return lines.join('\n');
}

/** A map item as prompt text: a string as it is, anything else as JSON; cut past {@link PROMPT_ITEM_CHARS}. */
function itemText(item: unknown): string {
  const text = typeof item === 'string' ? item : JSON.stringify(item ?? null);
  if (text.length <= PROMPT_ITEM_CHARS) return text;
  return `${text.slice(0, PROMPT_ITEM_CHARS)}\n--- [item cut: ${text.length - PROMPT_ITEM_CHARS} more characters not shown] ---`;
}
