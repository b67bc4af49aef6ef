import { setTimeout as sleep } from 'node:timers/promises';
import type { SwarmProgress } from '@wharf/orchestrator';
import { type OutputStore, StreamNotFoundError, tailStream } from '@wharf/output-store';
import { childTasks } from './progress-view.js';
import { terminalSafe } from './terminal-safe.js';

/** One running model step whose answer is streamed: who writes it (`review#2`) and its stream. */
export interface LiveStream {
  /** `task`, `task#instance`, or `swarmTask.task#instance` inside a `swarm:` task's child run. */
  name: string;
  stream: string;
}

/** What {@link LiveText} tells as answers are written. */
export interface LiveTextHandlers {
  /** New text of `name`'s answer (UTF-8 decoded across chunk boundaries): from chunk `at` of its stream. */
  text(name: string, text: string, at: { stream: string; attempt: number; seq: number }): void;
  /** `name`'s step started again on another attempt (its worker died, or the model call failed): its text restarts. */
  restarted?(
    name: string,
    attempt: number,
    previous: { attempt: number; state: string; reason?: string },
    stream: string,
  ): void;
}

/** Options of {@link LiveText}. */
export interface LiveTextOptions {
  /** At most this many answers are followed at once (the first running ones); default 4. */
  maxStreams?: number;
  /** How often a followed stream is looked at when nothing new is stored; default 50 ms. */
  intervalMs?: number;
  /** How long an answer is still followed after its step left the progress (its last chunks); default 3 s. */
  lingerMs?: number;
}

/** The characters of an answer kept for {@link LiveText.lastLine}. */
const KEPT_CHARS = 2_000;

/**
 * The running model steps' answers, followed from the store as they are written: `update`
 * with each progress read starts following the text stream a running agent's heartbeat names
 * (`LiveInstance.stream`) and lets one go a while after its step is gone; `handlers.text` gets
 * each new piece; `lastLine` gives the end of an answer for a redrawn table. What cannot be read
 * (a stream not written yet, a store that fails) is tried again at the next look, never fatal:
 * the live text is a view, the run's records are what counts.
 *
 * @example
 * ```ts
 * const live = new LiveText(data.store, { text: (name, text) => process.stdout.write(`${name}: ${text}`) });
 * live.update(await wharf.progress(workflowId));
 * await live.settle(2_000);
 * ```
 */
export class LiveText {
  readonly #store: OutputStore;
  readonly #handlers: LiveTextHandlers;
  readonly #options: Required<LiveTextOptions>;
  /** Where each stream was read up to: a stream followed again resumes there, never repeats. */
  readonly #positions = new Map<string, { attempt: number; seq: number }>();
  /** Streams read to their seal: done. */
  readonly #sealed = new Set<string>();
  readonly #followed = new Map<
    string,
    { name: string; seenAt: number; text: string; controller: AbortController; done: Promise<void> }
  >();

  constructor(store: OutputStore, handlers: LiveTextHandlers, options: LiveTextOptions = {}) {
    this.#store = store;
    this.#handlers = handlers;
    this.#options = {
      maxStreams: options.maxStreams ?? 4,
      intervalMs: options.intervalMs ?? 50,
      lingerMs: options.lingerMs ?? 3_000,
    };
  }

  /** Follows the streams `progress` names; lets go of those gone for longer than `lingerMs`. */
  update(progress: SwarmProgress, now: number = Date.now()): void {
    for (const { name, stream } of liveStreams(progress)) {
      const followed = this.#followed.get(stream);
      if (followed !== undefined) {
        followed.seenAt = now;
        continue;
      }
      if (this.#sealed.has(stream) || this.#followed.size >= this.#options.maxStreams) continue;
      const controller = new AbortController();
      const entry = { name, seenAt: now, text: '', controller, done: Promise.resolve() };
      entry.done = this.#follow(stream, entry, controller.signal).finally(() => {
        if (this.#followed.get(stream) === entry) this.#followed.delete(stream);
      });
      this.#followed.set(stream, entry);
    }
    for (const entry of this.#followed.values())
      if (now - entry.seenAt > this.#options.lingerMs) entry.controller.abort();
  }

  /** The last line of `stream`'s answer so far, at most `width` characters (its end), safe to print (`terminalSafe`); undefined when none. */
  lastLine(stream: string, width: number): string | undefined {
    const text = this.#followed.get(stream)?.text.trimEnd();
    if (text === undefined || text === '') return undefined;
    // A model's text among Wharf's own lines: no escape sequence of its own gets through.
    const line = terminalSafe(text.slice(text.lastIndexOf('\n') + 1));
    return line.length <= width ? line : `…${line.slice(line.length - width + 1)}`;
  }

  /** Lets the followed streams end by themselves (sealed) for up to `ms`, then stops following every one. */
  async settle(ms: number): Promise<void> {
    const entries = [...this.#followed.values()];
    const all = Promise.all(entries.map((entry) => entry.done));
    if (ms > 0) {
      // The wait ends with the streams: its timer must not hold the process up after them.
      const waited = new AbortController();
      await Promise.race([all, sleep(ms, undefined, { signal: waited.signal }).catch(() => {})]);
      waited.abort();
    }
    for (const entry of entries) entry.controller.abort();
    await all;
  }

  async #follow(stream: string, entry: { name: string; text: string }, signal: AbortSignal): Promise<void> {
    let decoder = new TextDecoder();
    while (!signal.aborted) {
      try {
        const known = this.#positions.get(stream);
        const after = known === undefined || known.seq < 0 ? {} : { after: known };
        for await (const event of tailStream(
          this.#store,
          { stream },
          { signal, intervalMs: this.#options.intervalMs, ...after },
        )) {
          const at = this.#positions.get(stream);
          if (event.type === 'attempt') {
            // Another attempt than the one read so far (a worker that died, a failed call): its text starts again.
            if (at?.attempt !== event.attempt) {
              decoder = new TextDecoder();
              entry.text = '';
              this.#positions.set(stream, { attempt: event.attempt, seq: -1 });
              if (event.previous !== undefined)
                this.#handlers.restarted?.(entry.name, event.attempt, event.previous, stream);
            }
          } else if (event.type === 'chunk') {
            const position = { stream, attempt: event.attempt, seq: event.seq };
            this.#positions.set(stream, { attempt: event.attempt, seq: event.seq });
            const text = decoder.decode(event.bytes, { stream: true });
            if (text === '') continue;
            entry.text = (entry.text + text).slice(-KEPT_CHARS);
            this.#handlers.text(entry.name, text, position);
          } else {
            const rest = decoder.decode();
            if (rest !== '')
              this.#handlers.text(entry.name, rest, { stream, attempt: event.attempt, seq: at?.seq ?? 0 });
            if (event.type === 'sealed') {
              this.#sealed.add(stream);
              return;
            }
          }
        }
        return;
      } catch (error) {
        // Not written yet (the model has not answered): look again. Anything else: a view gives up quietly.
        if (!StreamNotFoundError.isInstance(error)) return;
        await sleep(this.#options.intervalMs * 2, undefined, { signal }).catch(() => {});
      }
    }
  }
}

/**
 * The text streams a progress read names, with who writes them: running agents' steps, also
 * inside `swarm:` tasks' child runs (named `<task>.<inner task>`).
 *
 * @example
 * ```ts
 * liveStreams(progress); // [{ name: 'review#2', stream: 'str_…' }]
 * ```
 */
export function liveStreams(progress: SwarmProgress): LiveStream[] {
  return progress.tasks.flatMap((task) => [
    ...(task.live ?? []).flatMap((live) =>
      live.stream === undefined
        ? []
        : [
            {
              name: live.instance === undefined ? task.task : `${task.task}#${live.instance}`,
              stream: live.stream,
            },
          ],
    ),
    ...(task.child === undefined ? [] : liveStreams(childTasks(task.task, task.child))),
  ]);
}
