import type { OutputStore } from '@wharf/output-store';
import type { ContextPlan } from '@wharf/swarm';
import type { RenderedContext } from './render-context.js';
import { subagentContext } from './subagent-context.js';

/** Options of {@link SubagentContexts}. */
export interface SubagentContextsOptions {
  /** Distinct contexts kept (the most recently used); default 64. */
  maxEntries?: number;
  /** Bytes of context text kept in all; default 16 MiB. */
  maxBytes?: number;
  /**
   * How long a rendered context is reused, in milliseconds; default 60,000. It bounds how long
   * an output deleted meanwhile can still be shown, instead of its "no longer available" line.
   */
  ttlMs?: number;
  /** The clock; default `Date.now`. */
  now?: () => number;
}

interface Entry {
  at: number;
  bytes: number;
  rendered: Promise<RenderedContext | undefined>;
}

/**
 * The contexts a worker renders ({@link subagentContext}), each read and rendered once for all
 * the instances that share it. A map's instances all have the same context plan (the outputs of
 * the tasks they depend on, the same budget), so a 10,000-item map read and rendered the same
 * bodies 10,000 times; now the first instance renders it and the others, on this worker, reuse
 * its text (concurrent instances wait for the one read). Outputs never change once stored, so
 * the text is the same; a context is reused for at most `ttlMs`, since an output deleted after
 * it was rendered would otherwise still be shown. A failed read is not kept.
 *
 * @example
 * ```ts
 * const contexts = new SubagentContexts(store);
 * const context = await contexts.render(input.context); // the same text as subagentContext(input.context, store)
 * ```
 */
export class SubagentContexts {
  readonly #store: OutputStore;
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  readonly #ttlMs: number;
  readonly #now: () => number;
  /** By the plan's JSON, least recently used first. */
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  constructor(store: OutputStore, options: SubagentContextsOptions = {}) {
    this.#store = store;
    this.#maxEntries = options.maxEntries ?? 64;
    this.#maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
    this.#ttlMs = options.ttlMs ?? 60_000;
    this.#now = options.now ?? Date.now;
  }

  /** The context of `plan`, rendered now or reused; undefined for no plan or an empty one. */
  async render(plan: ContextPlan | undefined): Promise<RenderedContext | undefined> {
    if (plan === undefined) return undefined;
    const key = JSON.stringify(plan);
    const now = this.#now();
    const found = this.#entries.get(key);
    if (found !== undefined) {
      this.#drop(key, found);
      if (now - found.at < this.#ttlMs) {
        this.#keep(key, found);
        return found.rendered;
      }
    }
    const entry: Entry = { at: now, bytes: 0, rendered: subagentContext(plan, this.#store) };
    this.#keep(key, entry);
    try {
      const rendered = await entry.rendered;
      if (this.#entries.get(key) === entry) {
        // Sized once rendered: the text is what the entry holds.
        this.#bytes -= entry.bytes;
        entry.bytes = Buffer.byteLength(rendered?.text ?? '', 'utf8') + key.length;
        this.#bytes += entry.bytes;
        this.#trim();
      }
      return rendered;
    } catch (error) {
      if (this.#entries.get(key) === entry) this.#drop(key, entry);
      throw error;
    }
  }

  #keep(key: string, entry: Entry): void {
    this.#entries.set(key, entry);
    this.#bytes += entry.bytes;
    this.#trim();
  }

  #drop(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }

  /** The least recently used go first, until both bounds hold (the newest always stays). */
  #trim(): void {
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size <= 1) break;
      if (this.#entries.size <= this.#maxEntries && this.#bytes <= this.#maxBytes) break;
      this.#drop(key, entry);
    }
  }
}
