import type { JsonObject, JsonValue } from '@wharf/common';
import type { Channel } from './channel.js';
import { InvalidUpdateError } from './channel-error.js';
import { adoptJsonList, sealJsonList } from './json-value.js';

/**
 * A message held by a {@link Messages} channel: a JSON object with a string `id`.
 *
 * @example
 * ```ts
 * const message: Message = { id: 'm1', role: 'user', content: 'hello' };
 * ```
 */
export type Message = JsonObject & { readonly id: string };

/**
 * Message list deduplicated by `id`: a write is one message or an array of messages; a
 * message whose `id` is already present replaces that entry in place, a new `id` is
 * appended. A message without a non-empty string `id` is an {@link InvalidUpdateError}
 * (ids are never invented: a made-up id would differ on replay). Concurrent same-step
 * writes merge in update order. Replacing and appending are O(1) per message.
 *
 * @example
 * ```ts
 * const state = new ChannelState({ chat: new Messages() });
 * state.update({ chat: [{ id: 'a', text: 'draft' }, { id: 'b', text: 'hi' }] });
 * state.update({ chat: { id: 'a', text: 'final' } });
 * state.get('chat'); // [{ id: 'a', text: 'final' }, { id: 'b', text: 'hi' }]
 * ```
 */
export class Messages<TMessage extends Message = Message>
  implements Channel<readonly TMessage[], TMessage | readonly TMessage[]>
{
  readonly kind = 'Messages';
  readonly allowsConcurrent = true;
  readonly checkpointed = true;
  readonly clearsOnStep = false;
  readonly spreadsArrays = true;
  /** Position of each id in a list this channel built; rebuilt on demand for a new list. */
  readonly #positions = new WeakMap<readonly TMessage[], Map<string, number>>();

  empty(): readonly TMessage[] {
    return [];
  }

  accept(incoming: JsonValue, channel: string): TMessage | readonly TMessage[] {
    if (Array.isArray(incoming)) {
      for (let index = 0; index < incoming.length; index++) checkMessage(incoming[index], channel, index);
      return incoming as readonly TMessage[];
    }
    checkMessage(incoming, channel, undefined);
    return incoming as TMessage;
  }

  merge(
    current: readonly TMessage[] | undefined,
    incoming: TMessage | readonly TMessage[],
  ): readonly TMessage[] {
    const list = (current ?? []) as TMessage[];
    const positions = this.#positionsOf(list);
    if (Array.isArray(incoming)) {
      for (const message of incoming as readonly TMessage[]) upsert(list, positions, message);
    } else {
      upsert(list, positions, incoming as TMessage);
    }
    return list;
  }

  isReady(value: readonly TMessage[] | undefined): boolean {
    return value !== undefined && value.length > 0;
  }

  view(value: readonly TMessage[]): readonly TMessage[] {
    return Object.freeze(value.slice());
  }

  toSnapshot(value: readonly TMessage[], serialising?: boolean): JsonValue {
    return serialising === true ? value : value.slice();
  }

  fromSnapshot(value: unknown, channel: string, owned?: boolean): readonly TMessage[] {
    if (!Array.isArray(value)) throw new InvalidUpdateError(channel, 'a Messages snapshot must be an array');
    const path = `snapshot value "${channel}"`;
    const items = owned === true ? adoptJsonList(value, path) : sealJsonList(value, path);
    const list: TMessage[] = [];
    this.merge(list, this.accept(items, channel));
    return list;
  }

  #positionsOf(list: readonly TMessage[]): Map<string, number> {
    let positions = this.#positions.get(list);
    if (positions === undefined) {
      positions = new Map();
      for (let index = 0; index < list.length; index++) positions.set((list[index] as TMessage).id, index);
      this.#positions.set(list, positions);
    }
    return positions;
  }
}

function upsert<TMessage extends Message>(
  list: TMessage[],
  positions: Map<string, number>,
  message: TMessage,
): void {
  const position = positions.get(message.id);
  if (position === undefined) {
    positions.set(message.id, list.length);
    list.push(message);
  } else {
    list[position] = message;
  }
}

function checkMessage(value: JsonValue | undefined, channel: string, index: number | undefined): void {
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  const id = isObject ? (value as JsonObject).id : undefined;
  if (typeof id === 'string' && id !== '') return;
  const where = index === undefined ? '' : `[${index}]`;
  if (!isObject)
    throw new InvalidUpdateError(channel, `message${where} must be an object with a string "id"`);
  const found = id === undefined ? 'it has none' : `found ${JSON.stringify(id)}`;
  throw new InvalidUpdateError(channel, `message${where} needs a non-empty string "id" (${found})`);
}
