import type { OutputStore } from '@wharf/output-store';
import type { ContextPlan } from '@wharf/swarm';
import type { RenderedContext } from './render-context.js';
import { SharedReads } from './shared-reads.js';
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
  /** By the plan's JSON. */
  readonly #reads: SharedReads<RenderedContext | undefined>;

  constructor(store: OutputStore, options: SubagentContextsOptions = {}) {
    this.#store = store;
    this.#reads = new SharedReads({
      maxEntries: options.maxEntries ?? 64,
      maxBytes: options.maxBytes ?? 16 * 1024 * 1024,
      ttlMs: options.ttlMs ?? 60_000,
      ...(options.now === undefined ? {} : { now: options.now }),
    });
  }

  /** The context of `plan`, rendered now or reused; undefined for no plan or an empty one. */
  async render(plan: ContextPlan | undefined): Promise<RenderedContext | undefined> {
    if (plan === undefined) return undefined;
    const key = JSON.stringify(plan);
    // Sized once rendered: the text is what the entry holds.
    return this.#reads.get(
      key,
      () => subagentContext(plan, this.#store),
      (rendered) => Buffer.byteLength(rendered?.text ?? '', 'utf8') + key.length,
    );
  }
}
