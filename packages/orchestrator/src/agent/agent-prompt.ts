import type { SubagentInput } from '../shared/types.js';

/**
 * The task prompt of an agent: its prompt (or description), inputs, context and IN_REFS.
 *
 * @example
 * ```ts
 * const prompt = agentPrompt(input, context?.text);
 * ```
 */
export function agentPrompt(input: SubagentInput, context: string | undefined): string {
  const lines = [input.definition.prompt ?? input.definition.description ?? `Do the task "${input.task}".`];
  if (Object.keys(input.inputs).length > 0) lines.push('', `Inputs: ${JSON.stringify(input.inputs)}`);
  if (context !== undefined && input.context !== undefined) {
    const ids = input.context.entries.map((entry) => `${entry.taskId}=${entry.outId}`).join(', ');
    lines.push('', `Outputs of earlier tasks (read one whole with read_input: ${ids}):`, context);
  }
  if (input.inRefs.length > 0) lines.push('', `IN_REFS (read with read_input): ${input.inRefs.join(', ')}`);
  lines.push('', 'Hand in your output with the emit tool, then answer with a one-line summary.');
  return lines.join('\n');
}
