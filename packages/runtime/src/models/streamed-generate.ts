import {
  type LanguageModelV4Content,
  type LanguageModelV4GenerateResult,
  type LanguageModelV4ResponseMetadata,
  type LanguageModelV4StreamPart,
  type LanguageModelV4StreamResult,
  UnsupportedFunctionalityError,
} from '@ai-sdk/provider';
import { type LanguageModelMiddleware, wrapLanguageModel } from 'ai';
import type { WharfLanguageModel } from './provider-errors.js';

/**
 * What a streamed model call tells while it runs. Each callback is awaited before the next
 * part is read, so a slow sink slows the read, never reorders it; a sink that throws fails
 * the call.
 *
 * @example
 * ```ts
 * const sink: ModelStreamSink = { text: (delta) => writer.append(delta) };
 * ```
 */
export interface ModelStreamSink {
  /** A piece of the answer's text, in order. */
  text?(delta: string): void | Promise<void>;
  /** A piece of a tool call's arguments as the model writes them (JSON text, unparsed). */
  toolInput?(part: ToolInputPart): void | Promise<void>;
}

/** One event of a tool call's arguments being written: see {@link ModelStreamSink.toolInput}. */
export type ToolInputPart =
  | { readonly type: 'start'; readonly id: string; readonly toolName: string }
  | { readonly type: 'delta'; readonly id: string; readonly delta: string }
  | { readonly type: 'end'; readonly id: string };

/**
 * A model whose `doGenerate` streams: it calls the model's `doStream`, tells `sink` each text
 * and tool-argument delta as it arrives, and returns what the stream carried as the one
 * generate result `generateText` expects (content in the order the stream opened it, usage,
 * finish reason, response metadata, warnings). So a caller keeps `generateText`'s result and
 * errors — a stream's `error` part is thrown as the error — and still sees the answer as it is
 * written.
 *
 * A model that cannot stream answers through its own `doGenerate`: one whose `doStream` throws
 * the AI SDK's `UnsupportedFunctionalityError`, or `Not implemented` (what the AI SDK's mock
 * models throw when given no `doStream`): nothing was sent to a provider then. A server that
 * ignores `stream: true` and answers with one JSON body (`content-type: application/json`) is
 * asked again through `doGenerate`: two requests for that call.
 *
 * @example
 * ```ts
 * const model = streamedGenerate(openai('gpt-4o-mini'), { text: (delta) => process.stdout.write(delta) });
 * const { text } = await generateText({ model, prompt: 'Write a haiku.' }); // printed as it came
 * ```
 */
export function streamedGenerate(model: WharfLanguageModel, sink: ModelStreamSink): WharfLanguageModel {
  const middleware: LanguageModelMiddleware = {
    specificationVersion: 'v4',
    wrapGenerate: async ({ doGenerate, doStream }) => {
      let streamed: LanguageModelV4StreamResult;
      try {
        streamed = await doStream();
      } catch (error) {
        if (cannotStream(error)) return doGenerate();
        throw error;
      }
      // A server that ignores `stream: true` (some OpenAI-compatible ones) answered in one JSON
      // body, which no event stream parses: ask again without streaming.
      if (answeredWithoutEvents(streamed)) {
        await streamed.stream.cancel().catch(() => {});
        return doGenerate();
      }
      return collectStream(streamed, sink);
    },
  };
  return wrapLanguageModel({ model, middleware });
}

/**
 * True for the error a model throws when asked to stream and it cannot.
 *
 * @example
 * ```ts
 * cannotStream(new UnsupportedFunctionalityError({ functionality: 'streaming' })); // true
 * ```
 */
export function cannotStream(error: unknown): boolean {
  return (
    UnsupportedFunctionalityError.isInstance(error) ||
    (error instanceof Error && error.constructor === Error && error.message === 'Not implemented')
  );
}

/** True when the stream's HTTP response says it is one JSON body, not server-sent events. */
function answeredWithoutEvents(streamed: LanguageModelV4StreamResult): boolean {
  const headers = streamed.response?.headers ?? {};
  const type = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  return type !== undefined && /^application\/json\b/i.test(type);
}

/**
 * Reads a model's stream to its end into a generate result, telling `sink` the deltas.
 *
 * @example
 * ```ts
 * const result = await collectStream(await model.doStream(options), { text: (delta) => log(delta) });
 * ```
 */
export async function collectStream(
  streamed: LanguageModelV4StreamResult,
  sink: ModelStreamSink,
): Promise<LanguageModelV4GenerateResult> {
  const content: LanguageModelV4Content[] = [];
  // A text or reasoning block, by its stream id: where its content part is.
  type Block = Extract<LanguageModelV4Content, { type: 'text' | 'reasoning' }>;
  const blocks = new Map<string, Block>();
  const block = (type: 'text' | 'reasoning', id: string): Block => {
    const key = `${type}:${id}`;
    const found = blocks.get(key);
    if (found !== undefined) return found;
    const created: Block = { type, text: '' };
    blocks.set(key, created);
    content.push(created);
    return created;
  };
  let finish: Extract<LanguageModelV4StreamPart, { type: 'finish' }> | undefined;
  let warnings: LanguageModelV4GenerateResult['warnings'] = [];
  let metadata: LanguageModelV4ResponseMetadata = {};
  const reader = streamed.stream.getReader();
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      const part = next.value;
      switch (part.type) {
        case 'text-start':
        case 'reasoning-start': {
          const found = block(part.type === 'text-start' ? 'text' : 'reasoning', part.id);
          if (part.providerMetadata !== undefined) found.providerMetadata = part.providerMetadata;
          break;
        }
        case 'text-delta':
          block('text', part.id).text += part.delta;
          if (part.delta !== '') await sink.text?.(part.delta);
          break;
        case 'reasoning-delta':
          block('reasoning', part.id).text += part.delta;
          break;
        case 'text-end': {
          const found = block('text', part.id) as Extract<LanguageModelV4Content, { type: 'text' }>;
          if (part.providerMetadata !== undefined) found.providerMetadata = part.providerMetadata;
          if (part.citations !== undefined) found.citations = part.citations;
          break;
        }
        case 'reasoning-end':
          if (part.providerMetadata !== undefined)
            block('reasoning', part.id).providerMetadata = part.providerMetadata;
          break;
        case 'tool-input-start':
          await sink.toolInput?.({ type: 'start', id: part.id, toolName: part.toolName });
          break;
        case 'tool-input-delta':
          await sink.toolInput?.({ type: 'delta', id: part.id, delta: part.delta });
          break;
        case 'tool-input-end':
          await sink.toolInput?.({ type: 'end', id: part.id });
          break;
        case 'stream-start':
          warnings = part.warnings;
          break;
        case 'response-metadata': {
          const { type: _type, ...rest } = part;
          metadata = { ...metadata, ...rest };
          break;
        }
        case 'finish':
          finish = part;
          break;
        case 'error':
          throw part.error;
        case 'ping':
        case 'raw':
          break;
        default:
          // tool calls and results, files, sources, approvals, custom parts: content as they are.
          content.push(part);
      }
    }
  } finally {
    reader.releaseLock();
  }
  return {
    content,
    finishReason: finish?.finishReason ?? { unified: 'other', raw: undefined },
    usage: finish?.usage ?? {
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
    },
    ...(finish?.providerMetadata === undefined ? {} : { providerMetadata: finish.providerMetadata }),
    ...(streamed.request === undefined ? {} : { request: streamed.request }),
    response: {
      ...metadata,
      ...(streamed.response?.headers === undefined ? {} : { headers: streamed.response.headers }),
    },
    warnings,
  };
}
