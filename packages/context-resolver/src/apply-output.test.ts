import { describe, expect, it } from 'vitest';
import { applyOutput } from './apply-output.js';
import type { Context } from './context.js';
import { resolveReference } from './context.js';
import { ContextLog } from './context-log.js';
import { ContextResolverError, InvalidExpressionError } from './context-resolver-error.js';
import { resolveCall } from './resolve-call.js';
import type { ContextMessage } from './schemas.js';

const date = '2025-10-26T12:00:00Z';

describe('applyOutput', () => {
  it('appends the note’s output message and the Alex values resolve from it', () => {
    const context = new ContextLog([{ type: 'data', data: { user: { name: 'Alex', status: 'active' } } }]);
    const call = { _tool: 'updateUserStatus', newStatus: 'inactive', _outputPath: '†data.user.status' };
    const applied = applyOutput(context, call, 'inactive', { date });
    expect(applied).toEqual({
      written: true,
      indices: [1],
      messages: [
        {
          type: 'data',
          data: { user: { status: 'inactive' } },
          _call: call,
          _date: date,
          _outputMethod: 'set',
          _path: 'user.status',
        },
      ],
    });
    expect(context.resolve('†data.user')).toEqual({
      found: true,
      value: { name: 'Alex', status: 'inactive' },
    });
  });

  it('refuses an output path index past a million as an invalid path, pointing at the index', () => {
    const context: ContextMessage[] = [];
    let thrown: unknown;
    try {
      applyOutput(context, { _tool: 't', _outputPath: '†data.rows.2000000.name' }, 1, { date });
    } catch (error) {
      thrown = error;
    }
    expect(InvalidExpressionError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({
      code: 'INVALID_PATH',
      expression: '†data.rows.2000000.name',
      position: 11,
    });
    expect(context).toEqual([]);
  });

  it('writes nothing for a call without _outputPath and says so', () => {
    const context: ContextMessage[] = [];
    expect(applyOutput(context, { _tool: 'notify' }, { sent: true }, { date })).toEqual({
      written: false,
      reason: 'no-output-path',
    });
    expect(context).toEqual([]);
  });

  it('fans out with && to one message per destination', () => {
    const context = new ContextLog();
    const applied = applyOutput(context, { _outputPath: '†data.summary && †state.last' }, 'text', { date });
    expect(applied.written && applied.indices).toEqual([0, 1]);
    expect(context.resolve('†data.summary')).toEqual({ found: true, value: 'text' });
    expect(context.resolve('†state.last')).toEqual({ found: true, value: 'text' });
  });

  it('|| routes a success left and a failed call’s error right', () => {
    const context = new ContextLog();
    const call = { _tool: 'fetch', _outputPath: '†data.page || †data.fetchError' };
    applyOutput(context, call, { html: '<p>' }, { date });
    applyOutput(context, call, new TypeError('socket closed'), { date, outcome: 'failure' });
    expect(context.resolve('†data.page')).toEqual({ found: true, value: { html: '<p>' } });
    expect(context.resolve('†data.fetchError')).toEqual({
      found: true,
      value: { name: 'TypeError', message: 'socket closed' },
    });
    const plain = applyOutput(context, { _outputPath: '†data.x' }, new Error('e'), {
      date,
      outcome: 'failure',
    });
    expect(plain).toEqual({ written: false, reason: 'no-destination' });
    expect(context.length).toBe(2);
  });

  it('stores the method and reads combine the outputs', () => {
    const context: Context = [];
    applyOutput(context, { _outputPath: '†state.items' }, ['a'], { date });
    applyOutput(context, { _outputPath: '†state.items', _outputMethod: 'push' }, 'b', { date });
    applyOutput(context, { _outputPath: '†state.items', _outputMethod: 'concat' }, ['c', 'd'], { date });
    applyOutput(context, { _outputPath: '†state.meta', _outputMethod: 'merge' }, { a: 1 }, { date });
    applyOutput(context, { _outputPath: '†state.meta', _outputMethod: 'merge' }, { b: 2 }, { date });
    expect(resolveReference(context, '†state')).toEqual({
      found: true,
      value: { items: ['a', 'b', 'c', 'd'], meta: { a: 1, b: 2 } },
    });
  });

  it('chains calls: an output path feeds a later call’s reference', () => {
    const context = new ContextLog([{ type: 'input', data: { topic: 'tides' } }]);
    const plan = [
      { _tool: 'search', q: '†input.topic', _outputPath: '†data.hits' },
      { _tool: 'summarize', text: '†data.hits', _outputPath: '†data.summary' },
    ];
    expect(resolveCall(context, plan[1] as (typeof plan)[1])).toMatchObject({ status: 'not-ready' });
    const first = resolveCall(context, plan[0] as (typeof plan)[0]);
    expect(first).toMatchObject({ status: 'ready', call: { q: 'tides' } });
    applyOutput(context, plan[0] as (typeof plan)[0], ['h1', 'h2'], { date });
    expect(resolveCall(context, plan[1] as (typeof plan)[1])).toMatchObject({
      status: 'ready',
      call: { text: ['h1', 'h2'] },
    });
  });

  it('rejects bad input before writing anything', () => {
    const context = new ContextLog();
    const cases: [Parameters<typeof applyOutput>[1], unknown, string, RegExp][] = [
      [{ _outputPath: '†data.a' }, 1, 'yesterday', /date: "yesterday" is not an ISO timestamp/],
      [{ _outputPath: '†data.a && data.b' }, 1, date, /position 11/],
      [{ _outputPath: '†data.a', _outputMethod: 'merge' }, [1], date, /merge output must be a JSON object/],
      [{ _outputPath: '†data.a', _outputMethod: 'concat' }, 'x', date, /concat output must be a JSON array/],
      [{ _outputPath: '†data.a' }, { when: () => 1 }, date, /result\.when: function is not a JSON value/],
      [{ _outputPath: '†data.a', _outputMethod: 'upsert' as 'set' }, 1, date, /call\._outputMethod/],
    ];
    for (const [call, result, when, expected] of cases) {
      expect(() => applyOutput(context, call, result, { date: when })).toThrow(expected);
    }
    expect(context.length).toBe(0);
  });

  it('names a missing or malformed argument with a typed error, writing nothing', () => {
    // As a JavaScript caller (or a typo) would call it: the types no longer guard the arguments.
    const untyped = applyOutput as (...args: unknown[]) => unknown;
    const context = new ContextLog();
    const call = { _outputPath: '†data.a' };
    const cases: [unknown[], RegExp][] = [
      [
        [context, call, 1],
        /applyOutput: options \(4th argument\) must be an object with a date, got undefined/,
      ],
      [[context, call, 1, null], /options \(4th argument\) must be an object with a date, got null/],
      [
        [context, call, 1, '2025-10-26T12:00:00Z'],
        /options \(4th argument\) must be an object .*got a string/,
      ],
      [
        [context, call, 1, { date, outcome: 'maybe' }],
        /options\.outcome must be 'success' or 'failure', got "maybe"/,
      ],
      [
        [undefined, call, 1, { date }],
        /applyOutput: context \(1st argument\) must be a ContextLog or a message array/,
      ],
    ];
    for (const [args, message] of cases) {
      let thrown: unknown;
      try {
        untyped(...args);
      } catch (error) {
        thrown = error;
      }
      expect(ContextResolverError.isInstance(thrown), String(message)).toBe(true);
      expect(thrown).toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect((thrown as Error).message).toMatch(message);
    }
    expect(context.length).toBe(0);
  });

  it('copies the result: mutating it later does not rewrite history', () => {
    const context = new ContextLog();
    const result = { list: [1] };
    applyOutput(context, { _outputPath: '†data.r' }, result, { date });
    result.list.push(2);
    expect(context.resolve('†data.r.list')).toEqual({ found: true, value: [1] });
  });
});
