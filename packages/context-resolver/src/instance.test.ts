import { describe, expect, it } from 'vitest';
import { applyOutput } from './apply-output.js';
import { resolveReference } from './context.js';
import { ContextLog } from './context-log.js';
import { resolveCall } from './resolve-call.js';
import type { ContextMessage } from './schemas.js';

const date = '2025-10-26T12:00:00Z';

describe('_instance scoping', () => {
  for (const [label, make] of [
    ['indexed log', () => new ContextLog([{ type: 'data', data: { shared: 'base', items: [] } }])],
    ['plain array', (): ContextMessage[] => [{ type: 'data', data: { shared: 'base', items: [] } }]],
  ] as const) {
    it(`parallel instances never see each other's writes (${label})`, () => {
      const context = make();
      for (const id of ['a', 'b']) {
        applyOutput(context, { _instance: id, _outputPath: '†data.result' }, `result-${id}`, { date });
        applyOutput(context, { _instance: id, _outputPath: '†data.items', _outputMethod: 'push' }, id, {
          date,
        });
      }
      expect(resolveReference(context, '†data.result', { instance: 'a' })).toEqual({
        found: true,
        value: 'result-a',
      });
      expect(resolveReference(context, '†data.result', { instance: 'b' })).toEqual({
        found: true,
        value: 'result-b',
      });
      expect(resolveReference(context, '†data.items', { instance: 'b' })).toEqual({
        found: true,
        value: ['b'],
      });
      expect(resolveReference(context, '†data.result')).toEqual({ found: false });
      expect(resolveReference(context, '†data.items')).toEqual({ found: true, value: [] });
      expect(resolveCall(context, { _instance: 'a', in: '†data.shared', mine: '†data.result' })).toEqual({
        status: 'ready',
        call: { _instance: 'a', in: 'base', mine: 'result-a' },
      });
      expect(resolveCall(context, { _instance: 'c', mine: '†data.result' })).toMatchObject({
        status: 'not-ready',
        missing: ['†data.result'],
      });
    });
  }

  it('tags instance outputs with _instance', () => {
    const context = new ContextLog();
    const applied = applyOutput(context, { _instance: 'x', _outputPath: '†state.v' }, 1, { date });
    expect(applied.written && applied.messages[0]?._instance).toBe('x');
  });

  it('a newer shared set hides an older instance write of the same path', () => {
    const context = new ContextLog();
    applyOutput(context, { _instance: 'x', _outputPath: '†state.v' }, 'instance', { date });
    applyOutput(context, { _outputPath: '†state.v' }, 'shared', { date });
    expect(context.resolve('†state.v', { instance: 'x' })).toEqual({ found: true, value: 'shared' });
  });
});
