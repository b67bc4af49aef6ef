import { describe, expect, it } from 'vitest';
import { ContextLog } from './context-log.js';
import { InvalidExpressionError } from './context-resolver-error.js';
import { resolveCall } from './resolve-call.js';
import type { ContextMessage } from './schemas.js';

const messages: ContextMessage[] = [
  { type: 'data', data: { user: { name: 'Alex', id: 7, tags: ['a', 'b'] }, nothing: null } },
  { type: 'input', data: { city: 'Oslo' } },
];

describe('resolveCall', () => {
  for (const [label, make] of [
    ['indexed log', () => new ContextLog(messages)],
    ['plain array', () => [...messages]],
  ] as const) {
    it(`replaces references deeply in arrays and objects (${label})`, () => {
      const result = resolveCall(make(), {
        _tool: 'lookup',
        _outputPath: '†data.result',
        id: '†data.user.id',
        filters: [{ city: '†input.city', tags: '†data.user.tags' }, '†data.nothing', 42, true],
        nested: { deep: { name: '†input.name || †data.user.name' } },
        plain: 'no references here',
      });
      expect(result).toEqual({
        status: 'ready',
        call: {
          _tool: 'lookup',
          _outputPath: '†data.result',
          id: 7,
          filters: [{ city: 'Oslo', tags: ['a', 'b'] }, null, 42, true],
          nested: { deep: { name: 'Alex' } },
          plain: 'no references here',
        },
      });
    });
  }

  it('interpolates references inside text', () => {
    const result = resolveCall(new ContextLog(messages), {
      prompt: 'Hello †data.user.name. Tags: †data.user.tags, price in €†data.user.id; not a ref: † alone',
    });
    expect(result).toEqual({
      status: 'ready',
      call: { prompt: 'Hello Alex. Tags: ["a","b"], price in €7; not a ref: † alone' },
    });
  });

  it('†† escapes a literal marker', () => {
    expect(
      resolveCall(new ContextLog(messages), { a: '††data.user.name', b: 'x ††data y †data.user.id' }),
    ).toEqual({
      status: 'ready',
      call: { a: '†data.user.name', b: 'x †data y 7' },
    });
  });

  it('lists the missing paths and the arguments needing them', () => {
    const result = resolveCall(new ContextLog(messages), {
      _tool: 'report',
      a: '†data.summary',
      b: ['†input.city && †data.score'],
      c: 'Dear †data.user.title, see †data.summary',
    });
    expect(result).toEqual({
      status: 'not-ready',
      missing: ['†data.summary', '†data.score', '†data.user.title'],
      arguments: [
        { argument: 'a', missing: ['†data.summary'] },
        { argument: 'b.0', missing: ['†data.score'] },
        { argument: 'c', missing: ['†data.user.title', '†data.summary'] },
      ],
    });
  });

  it('names the argument of a malformed expression', () => {
    let caught: unknown;
    try {
      resolveCall(new ContextLog(messages), { query: { text: '†data.a ||' } });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidExpressionError);
    expect((caught as InvalidExpressionError).message).toMatch(/^argument query\.text: .*position 10/);
  });

  it('does not touch the call it was given', () => {
    const call = { _tool: 't', list: ['†data.user.name'] };
    resolveCall(new ContextLog(messages), call);
    expect(call.list).toEqual(['†data.user.name']);
  });
});

describe('resolveCall with kinds resolved outside the context', () => {
  const kinds = {
    channels: (path: readonly string[]) =>
      path[0] === 'findings' ? { found: true as const, value: ['a', 'b'] } : { found: false as const },
  };

  it('reads a kind from its resolver, in whole expressions and in text', () => {
    const context = new ContextLog([{ type: 'channels', data: { findings: 'from the context' } }]);
    const resolution = resolveCall(
      context,
      {
        _tool: 't',
        all: '†channels.findings',
        text: 'got †channels.findings',
        other: '†channels.none || †data.x',
      },
      { kinds },
    );
    expect(resolution).toEqual({
      status: 'not-ready',
      missing: ['†channels.none', '†data.x'],
      arguments: expect.any(Array),
    });
    const ready = resolveCall(
      context,
      { _tool: 't', all: '†channels.findings', text: 'got †channels.findings' },
      { kinds },
    );
    expect(ready).toEqual({ status: 'ready', call: { _tool: 't', all: ['a', 'b'], text: 'got ["a","b"]' } });
  });

  it('leaves other kinds to the context', () => {
    const context = new ContextLog([{ type: 'data', data: { x: 1 } }]);
    expect(resolveCall(context, { _tool: 't', x: '†data.x' }, { kinds })).toEqual({
      status: 'ready',
      call: { _tool: 't', x: 1 },
    });
  });
});
