import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { formatBytes } from '@wharf/common';
import { parseEvidenceMarkers } from '@wharf/evidence';
import { estimateTokens, localModel } from './local-model.js';

const TASK_LINE_CHARS = 160;
const INPUTS_CHARS = 400;
const NAMES_SHOWN = 12;

/**
 * The offline `echo` model: it calls no tool and answers, in one step, with what it was sent —
 * the messages and their sizes by role, the tools offered, the task's first line, its inputs,
 * the earlier outputs and IN_REFS in its prompt, tool results, and the `[EVIDENCE:…]` markers
 * with the evidence mounted for each (or why not). Deterministic: the same call gets the same
 * answer, so a swarm's wiring and evidence can be checked with no provider and no key. Tokens
 * are estimated (4 bytes a token).
 *
 * @example
 * ```ts
 * const { text } = await generateText({ model: echoModel(), prompt: 'hello' });
 * // 'Echo model (offline): I was sent 1 message, 5 B (user 5 B), and no tools.\nTask: hello'
 * ```
 */
export function echoModel(): LanguageModelV4 {
  return localModel({
    provider: 'wharf',
    modelId: 'echo',
    answer: (call) => {
      const text = echoAnswer(call);
      return {
        content: [{ type: 'text', text }],
        inputTokens: estimateTokens(JSON.stringify(call.prompt)),
        outputTokens: estimateTokens(text),
      };
    },
  });
}

/**
 * What the `echo` model answers to one call (see {@link echoModel}).
 *
 * @example
 * ```ts
 * echoAnswer({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
 * ```
 */
export function echoAnswer(call: Pick<LanguageModelV4CallOptions, 'prompt' | 'tools'>): string {
  const texts = messageTexts(call.prompt);
  const bytesByRole = new Map<string, number>();
  let total = 0;
  for (const { role, text } of texts) {
    const bytes = Buffer.byteLength(text, 'utf8');
    bytesByRole.set(role, (bytesByRole.get(role) ?? 0) + bytes);
    total += bytes;
  }
  const roles = [...bytesByRole].map(([role, bytes]) => `${role} ${formatBytes(bytes)}`).join(', ');
  const tools = (call.tools ?? []).map((tool) => tool.name).sort();
  const count = call.prompt.length;
  const lines = [
    `Echo model (offline): I was sent ${count} message${count === 1 ? '' : 's'}, ${formatBytes(total)} (${roles}), and ${
      tools.length === 0
        ? 'no tools'
        : `${tools.length} tool${tools.length === 1 ? '' : 's'}: ${tools.join(', ')}`
    }.`,
  ];
  const userText = texts
    .filter((entry) => entry.role === 'user')
    .map((entry) => entry.text)
    .join('\n');
  const firstLine = userText.split('\n').find((line) => line.trim() !== '');
  if (firstLine !== undefined) lines.push(`Task: ${cut(firstLine.trim(), TASK_LINE_CHARS)}`);
  const item = /^Your item \(index .*$/m.exec(userText)?.[0];
  if (item !== undefined) lines.push(cut(item, INPUTS_CHARS));
  const inputs = /^Inputs: (.*)$/m.exec(userText)?.[1];
  if (inputs !== undefined) lines.push(`Inputs: ${cut(inputs, INPUTS_CHARS)}`);
  const context = /^Outputs of earlier tasks \(read one whole with read_input: (.*)\):$/m.exec(userText)?.[1];
  if (context !== undefined) {
    const tasks = context.split(', ').map((entry) => entry.split('=')[0] ?? entry);
    lines.push(`Earlier outputs in my prompt: ${tasks.length} (${names(tasks)})`);
  }
  const inRefs = /^IN_REFS \(read with read_input\): (.*)$/m.exec(userText)?.[1];
  if (inRefs !== undefined) lines.push(`IN_REFS: ${inRefs.split(', ').length}`);
  const results = toolResults(call.prompt);
  if (results.length > 0) {
    const shown = results.map((result) => `${result.toolName} ${formatBytes(result.bytes)}`);
    lines.push(`Tool results: ${results.length} (${names(shown)})`);
  }
  lines.push(...evidenceLines(texts.map((entry) => entry.text).join('\n')));
  lines.push('I call no tools: an echo answer ends the task in one step.');
  return lines.join('\n');
}

/** What the evidence markers in the prompt came to: mounted (with bytes), refused, gone. */
function evidenceLines(text: string): string[] {
  const jobs = [...new Set(parseEvidenceMarkers(text).markers.map((marker) => marker.jobId))];
  if (jobs.length === 0) return [];
  const mounted = new Map<string, number>();
  for (const match of text.matchAll(
    /--- Evidence for Worker (\S+) \([^)\n]*\) ---\n[\s\S]*?--- End Evidence ---/g,
  )) {
    const job = match[1] ?? '';
    mounted.set(job, (mounted.get(job) ?? 0) + Buffer.byteLength(match[0], 'utf8'));
  }
  const refused = [...text.matchAll(/\[evidence refused for job (\S+?):/g)].map((match) => match[1] ?? '');
  const gone = [...text.matchAll(/\[evidence no longer available for job (\S+?)\]/g)].map(
    (match) => match[1] ?? '',
  );
  let bytes = 0;
  for (const value of mounted.values()) bytes += value;
  const lines = [
    `Evidence markers: ${jobs.length} (${names(jobs)}); evidence mounted for ${mounted.size}, ${formatBytes(bytes)} in all`,
  ];
  if (mounted.size > 0) {
    lines.push(`  mounted: ${names([...mounted].map(([job, size]) => `${job} ${formatBytes(size)}`))}`);
  }
  if (refused.length > 0) lines.push(`  refused: ${names(refused)}`);
  if (gone.length > 0) lines.push(`  no longer available: ${names(gone)}`);
  const bare = jobs.filter((job) => !mounted.has(job) && !refused.includes(job) && !gone.includes(job));
  if (bare.length > 0) lines.push(`  not mounted: ${names(bare)}`);
  return lines;
}

/** Every message's text as the model gets it (tool results as their text or JSON). */
function messageTexts(prompt: LanguageModelV4Prompt): { role: string; text: string }[] {
  return prompt.map((message) => {
    if (message.role === 'system') return { role: 'system', text: message.content };
    const parts: string[] = [];
    for (const part of message.content) {
      if (part.type === 'text' || part.type === 'reasoning') parts.push(part.text);
      else if (part.type === 'tool-call') parts.push(JSON.stringify(part.input));
      else if (part.type === 'tool-result') parts.push(outputText(part.output));
    }
    return { role: message.role, text: parts.join('\n') };
  });
}

function toolResults(prompt: LanguageModelV4Prompt): { toolName: string; bytes: number }[] {
  const results: { toolName: string; bytes: number }[] = [];
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result') {
        results.push({ toolName: part.toolName, bytes: Buffer.byteLength(outputText(part.output), 'utf8') });
      }
    }
  }
  return results;
}

function outputText(output: { type: string; value?: unknown }): string {
  if (output.value === undefined) return '';
  return typeof output.value === 'string' ? output.value : JSON.stringify(output.value);
}

function names(values: readonly string[]): string {
  const shown = values.slice(0, NAMES_SHOWN).join(', ');
  return values.length > NAMES_SHOWN ? `${shown}, … ${values.length - NAMES_SHOWN} more` : shown;
}

function cut(text: string, chars: number): string {
  const characters = Array.from(text);
  return characters.length > chars ? `${characters.slice(0, chars).join('')}…` : text;
}
