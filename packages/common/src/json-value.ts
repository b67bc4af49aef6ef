/**
 * A plain JSON value, read-only all the way down: what a channel holds, what a context
 * message's data and a resolved reference are made of. A mutable value is one too.
 *
 * @example
 * ```ts
 * const value: JsonValue = { plan: ['fetch', 'summarise'], done: false };
 * ```
 */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | JsonObject;

/**
 * A plain JSON object.
 *
 * @example
 * ```ts
 * const message: JsonObject = { id: 'm1', text: 'hello' };
 * ```
 */
export type JsonObject = { readonly [key: string]: JsonValue };
