import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChannelState } from './channel-state.js';
import { Delta } from './delta.js';
import { LastValue } from './last-value.js';
import { parseSnapshotText } from './snapshot.js';
import { Topic } from './topic.js';

const definitions = () => ({
  plan: new LastValue(),
  log: new Topic(),
  other: new Topic(),
  tokens: new Delta(),
  // A name whose JSON text ends like another channel's key: `"x\"log":[` holds `"log":[`.
  'x"log': new Topic(),
});

/** Checkpoint text's JSON value without its `index` member (which the object route ignores). */
function checkpointValue(text: string): unknown {
  const { index: _index, ...value } = JSON.parse(text);
  return value;
}

function outcome(work: () => unknown): unknown {
  try {
    return work();
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** Checkpoint text written before `snapshotText` reused text: plain `JSON.stringify`, declaration order. */
const OLD_TEXT =
  '{"format":"wharf-channels","version":1,"step":3,"values":{"plan":{"goal":"x"},"log":["a",{"b":[1]}],"other":["o"],"tokens":5}}';

describe('checkpoint text', () => {
  it('reads checkpoint text written before, and writes text the object route reads', () => {
    const viaText = new ChannelState(definitions()).restoreText(OLD_TEXT);
    const viaObject = new ChannelState(definitions()).restore(JSON.parse(OLD_TEXT));
    expect(viaText.snapshot()).toEqual(viaObject.snapshot());
    expect(viaText.step).toBe(3);
    viaText.update({ log: 'c' });
    viaObject.update({ log: 'c' });
    const text = viaText.snapshotText();
    expect(checkpointValue(text)).toEqual(viaObject.snapshot());
    expect(new ChannelState(definitions()).restore(JSON.parse(text)).snapshot()).toEqual(
      viaObject.snapshot(),
    );
  });

  it('writes the longest topic last and the same value as the snapshot', () => {
    const state = new ChannelState(definitions());
    state.update({ plan: 'p', log: ['a', 'b'], other: ['c', 'd', 'e'], tokens: 2 }, { step: 1 });
    const text = state.snapshotText();
    expect(text).toBe(
      '{"format":"wharf-channels","version":1,"step":1,"index":{"other":{"items":3,"chars":13}},"values":{"plan":"p","log":["a","b"],"tokens":2,"x\\"log":[],"other":["c","d","e"]}}',
    );
    expect(checkpointValue(text)).toEqual(state.snapshot());
  });

  it('keeps writing exact text across restores, appends and resets (property)', () => {
    const step = fc.record({
      log: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
      other: fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
      reset: fc.boolean(),
      carry: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 10 }), (steps) => {
        let state = new ChannelState(definitions());
        for (const { log, other, reset, carry } of steps) {
          state.update({ log: log as never, other });
          if (reset) state.reset('other');
          const text = state.snapshotText();
          expect(checkpointValue(text)).toEqual(JSON.parse(JSON.stringify(state.snapshot())));
          if (carry) {
            const restored = new ChannelState(definitions()).restoreText(text);
            expect(restored.snapshot()).toEqual(state.snapshot());
            expect(restored.snapshotText()).toBe(text);
            state = restored;
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  // Text from any writer: members in any order, repeated names (JSON.parse keeps the last),
  // escaped or odd names, white space, members that are not the envelope's, and the topic's
  // key inside other values. Reading it as text must always agree with JSON.parse + restore.
  const space = fc.constantFrom('', '', '', ' ', '\n');
  const items = fc.oneof(
    fc.constant([]),
    fc.array(fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant({ log: ['inner'] })), { maxLength: 3 }),
  );
  const member = fc.oneof(
    fc.tuple(fc.constant('"plan"'), fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant({ log: [1] }))),
    fc.tuple(fc.constantFrom('"log"', '"other"', '"lo\\u0067"', '"x\\"log"', '"log "'), items),
    fc.tuple(fc.constant('"tokens"'), fc.integer({ min: -9, max: 9 })),
  );
  const text = fc
    .record({
      members: fc.array(member, { maxLength: 5 }),
      step: fc.option(fc.nat({ max: 9 }), { nil: undefined }),
      extra: fc.constantFrom('', '', '', '"x":1', '"values":{"log":[]}', '"x":{"log":["b"]}'),
      valuesFirst: fc.constantFrom(false, false, false, true),
      space,
    })
    .map(({ members, step, extra, valuesFirst, space: gap }) => {
      const json = (value: unknown) => (gap === '' ? JSON.stringify(value) : JSON.stringify(value, null, 1));
      const values = `{${members.map(([key, value]) => `${key}:${gap}${json(value)}`).join(`,${gap}`)}}`;
      const head = ['"format":"wharf-channels"', '"version":1'];
      if (step !== undefined) head.push(`"step":${step}`);
      if (extra !== '') head.push(extra);
      const root = valuesFirst ? [`"values":${values}`, ...head] : [...head, `"values":${values}`];
      // An extra member may also come after the values.
      if (extra.startsWith('"x":{')) root.push(root.splice(root.indexOf(extra), 1)[0] as string);
      return `{${root.join(`,${gap}`)}}`;
    });

  /** restoreText's outcome next to parse + restore's (the value, or the error's message). */
  const bothWays = (checkpoint: string) => ({
    viaText: outcome(() => new ChannelState(definitions()).restoreText(checkpoint).snapshot()),
    viaObject: outcome(() =>
      new ChannelState(definitions()).restore(parseSnapshotText(checkpoint)).snapshot(),
    ),
  });

  it.each([
    // The topic's key inside an earlier member, and as the last member of another object.
    '{"format":"wharf-channels","version":1,"values":{"log":[]},"x":{"log":["b"]}}',
    // A name that ends like the topic's key (`"x\"log":[` holds `"log":[`).
    '{"format":"wharf-channels","version":1,"values":{"log":[],"x\\"log":["a"]}}',
    // A repeated name: JSON.parse keeps the last.
    '{"format":"wharf-channels","version":1,"values":{"log":["a"],"log":["b"]}}',
    '{"format":"wharf-channels","version":1,"values":{"log":["a"],"plan":{"log":["b"]}}}',
    // Not JSON after the topic.
    '{"format":"wharf-channels","version":1,"values":{"log":["a"]}x',
    '{"format":"wharf-channels","version":1,"values":{"log":["a"]}} x',
    // The topic's key as the last member of another envelope member.
    '{"format":"wharf-channels","version":1,"values":{"log":["a"]},"step":{"log":["b"]}}',
    // A values member repeated at the root.
    '{"format":"wharf-channels","version":1,"values":{"log":["a"]},"values":{"log":["b"]}}',
    '{"values":{"log":["a"]},"format":"wharf-channels","version":1,"values":{"other":["b"]}}',
  ])('reads %s exactly as JSON.parse + restore does', (checkpoint) => {
    const { viaText, viaObject } = bothWays(checkpoint);
    expect(viaText).toEqual(viaObject);
  });

  it('reads any JSON text exactly as JSON.parse + restore does (property)', () => {
    fc.assert(
      fc.property(text, (checkpoint) => {
        const { viaText, viaObject } = bothWays(checkpoint);
        expect(viaText, checkpoint).toEqual(viaObject);
        if ('error' in (viaText as object)) return;
        const restored = new ChannelState(definitions()).restoreText(checkpoint);
        restored.update({ log: 'next', other: 'next' });
        expect(checkpointValue(restored.snapshotText())).toEqual(
          JSON.parse(JSON.stringify(restored.snapshot())),
        );
      }),
      { numRuns: 3_000 },
    );
  });

  it('keeps restored items frozen and the text apart from what readers see', () => {
    const state = new ChannelState(definitions()).restoreText(OLD_TEXT);
    const log = state.get('log') as unknown[];
    expect(Object.isFrozen(log[1])).toBe(true);
    expect(() => (log as unknown[]).push('x')).toThrow(TypeError);
    expect(() => {
      ((log[1] as { b: number[] }).b as number[]).push(2);
    }).toThrow(TypeError);
    const { values } = JSON.parse(OLD_TEXT) as { values: object };
    expect(JSON.parse(state.snapshotText()).values).toEqual({ ...values, 'x"log': [] });
  });
});
