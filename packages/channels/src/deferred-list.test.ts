import { describe, expect, it } from 'vitest';
import { SnapshotError } from './channel-error.js';
import { ChannelState } from './channel-state.js';
import { DeferredList } from './deferred-list.js';
import { LastValue } from './last-value.js';
import { Topic } from './topic.js';

const definitions = () => ({ plan: new LastValue<string>(), log: new Topic<unknown>() });

/** Checkpoint text of a state whose long topic holds `items`. */
function checkpoint(items: unknown[]): string {
  return new ChannelState(definitions())
    .update({ plan: 'p', log: items as never }, { step: 2 })
    .snapshotText();
}

function caught(work: () => unknown): SnapshotError {
  try {
    work();
  } catch (error) {
    if (SnapshotError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a SnapshotError');
}

const ITEMS = ['a', { b: [1] }, 'c', 'd'];
/** Item 2 changed into text that is not JSON, the length kept: only parsing finds it. */
const CORRUPT = checkpoint(ITEMS).replace('"c"', '"c\u0001');

describe('restoreText with the items of a recorded topic parsed on first read', () => {
  it('restores without parsing the topic, appends and writes the next text without parsing it either', () => {
    const state = new ChannelState(definitions()).restoreText(CORRUPT);
    expect(state.get('plan')).toBe('p');
    expect(state.step).toBe(2);
    expect(state.isReady('log')).toBe(true);
    state.update({ log: 'e' });
    // The next checkpoint keeps the text it was given, and records the item appended.
    const next = state.snapshotText();
    expect(next).toContain('"c\u0001,"d","e"]');
    expect(JSON.parse(next.replace('"c\u0001', '"c"')).index).toEqual({
      log: { items: 5, chars: JSON.stringify([...ITEMS, 'e']).length },
    });
  });

  it('raises INVALID_SNAPSHOT naming the channel and the item at the first read, and at every read after', () => {
    const state = new ChannelState(definitions()).restoreText(CORRUPT);
    const error = caught(() => state.get('log'));
    expect(error.code).toBe('INVALID_SNAPSHOT');
    expect(error.message).toMatch(/channel "log".*first read.*item 2, at character 15/);
    expect(caught(() => state.get('log'))).toBe(error);
    expect(caught(() => state.snapshot())).toBe(error);
    // What was read is kept as it was: nothing is lost, the text still says what is wrong.
    expect(state.snapshotText()).toContain('"c\u0001,"d"]');
  });

  it("raises the same error at restore with items: 'at-restore', changing nothing", () => {
    const state = new ChannelState(definitions()).update({ plan: 'kept', log: 'x' });
    const error = caught(() => state.restoreText(CORRUPT, { items: 'at-restore' }));
    expect(error.code).toBe('INVALID_SNAPSHOT');
    expect(error.message).toMatch(/channel "log"/);
    expect(state.get('plan')).toBe('kept');
    expect(state.get('log')).toEqual(['x']);
  });

  it('reads a recorded count that the text does not hold as an error at first read, or at restore', () => {
    const text = checkpoint(ITEMS).replace('"items":4', '"items":5');
    const state = new ChannelState(definitions()).restoreText(text);
    expect(caught(() => state.get('log')).message).toMatch(/holds 4 items where its checkpoint recorded 5/);
    expect(() => new ChannelState(definitions()).restoreText(text, { items: 'at-restore' })).toThrow(
      /holds 4 items where its checkpoint recorded 5/,
    );
    // The object route checks the count too.
    expect(() => new ChannelState(definitions()).restore(JSON.parse(text))).toThrow(
      /holds 4 items where its checkpoint recorded 5/,
    );
  });

  it.each([
    ['a cut text', (text: string) => text.slice(0, -10)],
    ['an item made longer', (text: string) => text.replace('"c"', '"cc"')],
    ['an item made shorter', (text: string) => text.replace('"c",', '')],
    ['a wrong recorded length', (text: string) => text.replace(/"chars":\d+/, '"chars":3')],
    ['an index that is not an object', (text: string) => text.replace(/"index":\{.*?\}\}/, '"index":[]')],
    ['a negative count', (text: string) => text.replace('"items":4', '"items":-1')],
    [
      'an index of a channel without a list',
      (text: string) => text.replace('"index":{"log"', '"index":{"plan"'),
    ],
    ['another version', (text: string) => text.replace('"version":1', '"version":2')],
  ])('refuses %s at restore, changing nothing', (_, corrupt) => {
    const state = new ChannelState(definitions()).update({ plan: 'kept' });
    const text = corrupt(checkpoint(ITEMS));
    expect(text).not.toBe(checkpoint(ITEMS));
    for (const items of ['at-first-read', 'at-restore'] as const) {
      const error = caught(() => state.restoreText(text, { items }));
      expect(['INVALID_SNAPSHOT', 'UNSUPPORTED_SNAPSHOT_VERSION']).toContain(error.code);
      expect(state.get('plan')).toBe('kept');
    }
  });

  it('parses text written without an index (older writers) at restore, as before', () => {
    const old = '{"format":"wharf-channels","version":1,"values":{"plan":"p","log":["a","c\u0001]}}';
    expect(() => new ChannelState(definitions()).restoreText(old)).toThrow(SnapshotError);
  });

  it('reads the same values whichever way and whenever the items are parsed', () => {
    const text = checkpoint(ITEMS);
    const deferred = new ChannelState(definitions()).restoreText(text).update({ log: ['e', 'f'] });
    const eager = new ChannelState(definitions()).restoreText(text, { items: 'at-restore' }).update({
      log: ['e', 'f'],
    });
    const parsed = new ChannelState(definitions()).restore(JSON.parse(text)).update({ log: ['e', 'f'] });
    const written = deferred.snapshotText();
    expect(eager.snapshotText()).toBe(written);
    expect(parsed.snapshotText()).toBe(written);
    expect(deferred.get('log')).toEqual([...ITEMS, 'e', 'f']);
    expect(Object.isFrozen(deferred.get('log')?.[1])).toBe(true);
    deferred.update({ log: 'g' });
    expect(deferred.snapshotText()).toBe(parsed.update({ log: 'g' }).snapshotText());
  });
});

describe('DeferredList', () => {
  it('counts appended items without parsing, and parses once on the first read', () => {
    const list = new DeferredList<string>('["a","b"]', 2, 'log');
    list.append('c');
    expect(list.length).toBe(3);
    expect(list.parsed).toBe(false);
    expect(list.text()).toBe('["a","b","c"]');
    list.append('d');
    expect(list.items()).toEqual(['a', 'b', 'c', 'd']);
    expect(list.parsed).toBe(true);
    expect(list.text()).toBeUndefined();
  });

  it('hands the text of the parsed items to the list writer', () => {
    const known: unknown[] = [];
    const list = new DeferredList<string>('[ "a" ]', 1, 'log');
    list.append('b');
    list.items((items, count, body) => known.push(items.length, count, body));
    expect(known).toEqual([2, 1, ' "a" ']);
  });

  it.each([
    ['["a",x,"c"]', 3, /item 1, at character 5/],
    ['["a","b"]', 3, /holds 2 items where its checkpoint recorded 3/],
    ['{"a":1}', 1, /is not a list/],
  ])('names what is wrong in %s', (text, recorded, message) => {
    expect(() => new DeferredList(text, recorded, 'log').items()).toThrow(message);
  });
});
