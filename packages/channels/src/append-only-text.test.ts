import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppendOnlyText } from './append-only-text.js';
import { sealJson } from './json-value.js';

describe('AppendOnlyText', () => {
  it('writes exactly JSON.stringify of the list after any run of appends (property)', () => {
    const batches = fc.array(fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }), { maxLength: 8 });
    fc.assert(
      fc.property(batches, (appends) => {
        const texts = new AppendOnlyText();
        const list: unknown[] = [];
        expect(texts.write(list)).toBe('[]');
        for (const batch of appends) {
          for (const item of batch) list.push(sealJson(item, 'item'));
          expect(texts.write(list)).toBe(JSON.stringify(list));
        }
      }),
    );
  });

  it('serialises only what was appended since the last write', () => {
    const texts = new AppendOnlyText();
    const seen: string[] = [];
    // An item that records when it is serialised (items are frozen JSON in channels; this one
    // only spies on the writer).
    const spy = (name: string) => ({
      toJSON: () => {
        seen.push(name);
        return name;
      },
    });
    const list = [spy('a'), spy('b')];
    expect(texts.write(list)).toBe('["a","b"]');
    list.push(spy('c'));
    expect(texts.write(list)).toBe('["a","b","c"]');
    expect(texts.write(list)).toBe('["a","b","c"]');
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('starts from remembered text, white space included, and keeps it valid JSON', () => {
    const texts = new AppendOnlyText();
    const text = '[ "a" , {"b":1} ]';
    const list = JSON.parse(text) as unknown[];
    texts.remember(list, text);
    expect(texts.write(list)).toBe(text);
    list.push('c');
    expect(JSON.parse(texts.write(list))).toEqual(['a', { b: 1 }, 'c']);

    const empty = JSON.parse('[ ]') as unknown[];
    texts.remember(empty, '[ ]');
    empty.push('x');
    expect(texts.write(empty)).toBe('["x"]');
  });

  it('does not remember text that is not a bracketed list', () => {
    const texts = new AppendOnlyText();
    const list = ['a'];
    texts.remember(list, ' ["a"]');
    expect(texts.write(list)).toBe('["a"]');
  });

  it('keeps each list to its own text', () => {
    const texts = new AppendOnlyText();
    const first = ['a'];
    const second = ['b'];
    texts.write(first);
    texts.write(second);
    first.push('c');
    expect(texts.write(first)).toBe('["a","c"]');
    expect(texts.write(second)).toBe('["b"]');
  });
});
