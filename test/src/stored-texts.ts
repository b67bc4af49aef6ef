import type { OutputStore } from '@wharf/output-store';

/**
 * Every body in an output store, as UTF-8 text: for tests that look for what an agent was told
 * (its conversation records are among the bodies).
 *
 * @example
 * ```ts
 * const texts = await storedTexts(env.store);
 * expect(texts.some((text) => text.includes('rejected by timeout'))).toBe(true);
 * ```
 */
export async function storedTexts(store: OutputStore): Promise<string[]> {
  const texts: string[] = [];
  for (let page = await store.list({ limit: 1000 }); ; ) {
    for (const record of page.records)
      texts.push(Buffer.from((await store.get({ outId: record.outId })).body).toString('utf8'));
    if (page.nextCursor === undefined) return texts;
    page = await store.list({ limit: 1000, cursor: page.nextCursor });
  }
}
