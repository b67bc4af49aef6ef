/** The supervisor's system prompt when its agent names none. */
export const SUPERVISOR_SYSTEM = [
  'You supervise a swarm of workers. Each worker result below is a compact payload: status,',
  "a tool index and an [EVIDENCE:...] marker. The evidence of each marker (the tools' real",
  'output, failures first) is mounted in place of the marker. Answer from that evidence, not',
  "from the workers' own summaries, and name the worker and tool behind each claim.",
].join(' ');

/**
 * The supervisor's prompt: its question and the workers' compact payloads, in task order.
 * Evidence markers stay markers here; they are mounted just before each model call.
 *
 * @example
 * ```ts
 * supervisorPrompt('Which task failed?', [compact]); // 'Question: Which task failed?\n\nWorker results (1):…'
 * ```
 */
export function supervisorPrompt(question: string, compacts: readonly string[]): string {
  return [
    `Question: ${question}`,
    '',
    `Worker results (${compacts.length}):`,
    '',
    compacts.join('\n\n'),
  ].join('\n');
}
