import {
  defaultStreamContentType,
  IdempotencyConflictError,
  type OutputStore,
  openStream,
  type Producer,
  type StreamWriter,
  streamId,
} from '@wharf/output-store';
import type { ModelStreamSink, ToolInputPart } from '../models/streamed-generate.js';

/** The two streams of a step, each under `<step key>/<name>`. */
type StepStream = 'text' | 'tool-input';

/** What {@link stepStreams} writes under and how it reports a stream it had to give up. */
export interface StepStreamsOptions {
  producer: Producer;
  /** The step's idempotency key: the text stream is `<key>/text`, the tool arguments `<key>/tool-input`. */
  key: string;
  /** The activity's attempt: a retry writes a new attempt, never into a dead one's. */
  attempt: number;
  /** Name of the sealed text (`<job>.step-<n>.md`). */
  name: string;
  /** Labels of the sealed text. */
  labels: Record<string, string>;
  /** Told once when a stream cannot be written: the step goes on, its record keeps the text. */
  warn?: (message: string) => void;
  /** Chunk flush interval (default: the store's stream default, 100 ms). */
  flushMs?: number;
}

/**
 * The live streams of one agent model step, written as the model answers: its text (sealed
 * as a `text/markdown` output of exactly the step's text) and its tool calls' arguments (one
 * line per call: the tool's name, a space and its JSON arguments). Each is opened by its first
 * delta, so a step that writes no text stores no stream. Their ids are known before the call
 * (`text`, `toolInput`), for heartbeats: a reader polls a stream that is not there yet.
 *
 * The streams show the step while it runs; the step's record stays what the run reads. A
 * store failure while streaming is told once to `warn`, the stream is marked abandoned, and
 * the step goes on.
 *
 * @example
 * ```ts
 * const streams = stepStreams(store, { producer, key: 'run-7/a/step-2', attempt: 1, name: 'a.step-2.md', labels: {} });
 * const result = await generateText({ model: streamedGenerate(model, streams.sink), prompt });
 * await streams.finish();
 * ```
 */
export function stepStreams(store: OutputStore, options: StepStreamsOptions): StepStreams {
  return new StepStreams(store, options);
}

/** See {@link stepStreams}. */
export class StepStreams {
  /** The text stream's id (`str_…`). */
  readonly text: string;
  /** The tool-arguments stream's id (`str_…`). */
  readonly toolInput: string;
  readonly sink: ModelStreamSink;
  readonly #store: OutputStore;
  readonly #options: StepStreamsOptions;
  /** The writers opened so far, by stream: each opened by its first delta. */
  readonly #writers = new Map<StepStream, Promise<StreamWriter>>();
  #broken = false;
  readonly #names = new Map<string, string>();

  constructor(store: OutputStore, options: StepStreamsOptions) {
    this.#store = store;
    this.#options = options;
    this.text = streamId(options.producer, `${options.key}/text`);
    this.toolInput = streamId(options.producer, `${options.key}/tool-input`);
    this.sink = {
      text: (delta) => this.#append('text', delta),
      toolInput: (part) => this.#append('tool-input', toolInputText(part, this.#names)),
    };
  }

  /** Seals what was streamed. A seal refused because an earlier attempt sealed other text marks this attempt abandoned. */
  async finish(): Promise<void> {
    for (const writer of this.#writers.values()) {
      if (this.#broken) continue;
      await this.#guard(async () => {
        const open = await writer;
        try {
          await open.seal();
        } catch (error) {
          if (!IdempotencyConflictError.isInstance(error)) throw error;
          await open.abandon(
            `attempt ${open.attempt} answered differently from an earlier attempt that sealed`,
          );
        }
      });
    }
  }

  /** Marks what was streamed abandoned, saying why (the model call failed). */
  async fail(reason: string): Promise<void> {
    for (const writer of this.#writers.values())
      await writer.then((open) => open.abandon(reason)).catch(() => {});
  }

  async #append(which: StepStream, data: string): Promise<void> {
    if (this.#broken || data === '') return;
    await this.#guard(async () => {
      const writer = await this.#writer(which);
      await writer.append(data);
    });
  }

  #writer(which: StepStream): Promise<StreamWriter> {
    let writer = this.#writers.get(which);
    if (writer === undefined) {
      const { producer, key, attempt, name, labels, flushMs } = this.#options;
      const text = which === 'text';
      writer = openStream(this.#store, {
        producer,
        key: `${key}/${which}`,
        attempt,
        contentType: text ? 'text/markdown' : defaultStreamContentType,
        name: text ? name : name.replace(/\.md$/, '.tool-input.txt'),
        labels,
        ...(flushMs === undefined ? {} : { flushMs }),
      });
      this.#writers.set(which, writer);
    }
    return writer;
  }

  async #guard(work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (this.#broken) return;
      this.#broken = true;
      const message = error instanceof Error ? error.message : String(error);
      this.#options.warn?.(`the step's live stream stopped (${message}); its record keeps the whole answer`);
      await this.fail(`not written: ${message}`);
    }
  }
}

function toolInputText(part: ToolInputPart, names: Map<string, string>): string {
  switch (part.type) {
    case 'start':
      names.set(part.id, part.toolName);
      return `${part.toolName} `;
    case 'delta':
      return part.delta;
    case 'end':
      return names.delete(part.id) ? '\n' : '';
  }
}
