/**
 * The least a chat message must look like for evidence mounting: a role and a content that
 * is a string or an array of parts (AI SDK prompts and model messages, OpenAI-style chats).
 *
 * @example
 * ```ts
 * const message: MountableMessage = { role: 'tool', content: 'Worker job 1 completed.' };
 * ```
 */
export interface MountableMessage {
  role: string;
  content: unknown;
}

/** Roles whose text may carry evidence markers. */
const MOUNT_ROLES = new Set(['tool', 'assistant', 'user']);

type Rewrite = (text: string) => string;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function rewriteOutput(output: unknown, rewrite: Rewrite): unknown {
  if (!isRecord(output)) return output;
  const kind = output.type;
  if (
    (kind === 'text' || kind === 'error-text' || kind === 'json' || kind === 'error-json') &&
    typeof output.value === 'string'
  ) {
    const value = rewrite(output.value);
    return value === output.value ? output : { ...output, value };
  }
  if (kind === 'content' && Array.isArray(output.value)) {
    const value = rewriteParts(output.value, rewrite);
    return value === output.value ? output : { ...output, value };
  }
  return output;
}

function rewriteParts(parts: readonly unknown[], rewrite: Rewrite): readonly unknown[] {
  let changed = false;
  const next = parts.map((part) => {
    if (!isRecord(part)) return part;
    let updated: unknown = part;
    if (part.type === 'text' && typeof part.text === 'string') {
      const text = rewrite(part.text);
      if (text !== part.text) updated = { ...part, text };
    } else if (part.type === 'tool-result') {
      const output = rewriteOutput(part.output, rewrite);
      if (output !== part.output) updated = { ...part, output };
    }
    if (updated !== part) changed = true;
    return updated;
  });
  return changed ? next : parts;
}

/**
 * Applies `rewrite` to every text of a tool, assistant or user message that can carry an
 * evidence marker (string content, text parts, text/JSON-string tool results). Returns the
 * same message when nothing changed, otherwise a copy: the input is never mutated.
 *
 * @example
 * ```ts
 * const upper = rewriteMessageTexts({ role: 'user', content: 'hi' }, (text) => text.toUpperCase());
 * ```
 */
export function rewriteMessageTexts<TMessage extends MountableMessage>(
  message: TMessage,
  rewrite: Rewrite,
): TMessage {
  if (!isRecord(message) || !MOUNT_ROLES.has(message.role)) return message;
  if (typeof message.content === 'string') {
    const content = rewrite(message.content);
    return content === message.content ? message : { ...message, content };
  }
  if (Array.isArray(message.content)) {
    const content = rewriteParts(message.content, rewrite);
    return content === message.content ? message : { ...message, content };
  }
  return message;
}
