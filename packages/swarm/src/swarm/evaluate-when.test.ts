import { describe, expect, it } from 'vitest';
import { parseWhen } from '../dsl/when-condition.js';
import { type ConditionLookup, evaluateWhen, truthy } from './evaluate-when.js';

const lookupFrom =
  (values: Record<string, unknown>, dead: readonly string[] = []): ConditionLookup =>
  (reference) => {
    if (Object.hasOwn(values, reference)) return { state: 'value', value: values[reference] };
    return dead.includes(reference) ? { state: 'dead' } : { state: 'pending' };
  };
const when = (text: string, values: Record<string, unknown>, dead: readonly string[] = []) =>
  evaluateWhen(parseWhen(text), lookupFrom(values, dead));

describe('truthy', () => {
  it('is false for false, null, 0, blank strings, empty lists and objects only', () => {
    for (const value of [false, null, undefined, 0, '', '  \n', [], {}]) expect(truthy(value)).toBe(false);
    for (const value of [true, 1, -1, 'no', '0', [0], { a: null }]) expect(truthy(value)).toBe(true);
  });
});

describe('evaluateWhen', () => {
  it('compares a script exit code and a trimmed stdout preview', () => {
    expect(when('†data.lint.exitCode == 0', { '†data.lint.exitCode': 0 })).toEqual({
      decided: true,
      value: true,
    });
    expect(when('†data.lint.exitCode == 0', { '†data.lint.exitCode': 2 })).toEqual({
      decided: true,
      value: false,
    });
    expect(when("†data.ask.preview == 'yes'", { '†data.ask.preview': 'yes\n' })).toEqual({
      decided: true,
      value: true,
    });
    expect(when('†data.count.preview > 3', { '†data.count.preview': '12\n' })).toEqual({
      decided: true,
      value: true,
    });
    expect(when('†data.x != null', { '†data.x': { a: [1, { b: 2 }] } })).toEqual({
      decided: true,
      value: true,
    });
    expect(when('†data.x == †data.y', { '†data.x': { a: [1] }, '†data.y': { a: [1] } }).decided).toBe(true);
    expect(when('†data.x < 3', { '†data.x': { a: 1 } })).toEqual({ decided: true, value: false });
  });

  it('waits while a reference may still be written, unless the rest decides', () => {
    expect(when('†input.go', {})).toEqual({ decided: false, waitingFor: ['†input.go'] });
    expect(when('†data.a == 1 && †data.b', { '†data.a': 2 })).toEqual({ decided: true, value: false });
    expect(when('†data.a || †data.b', { '†data.a': 'x' })).toEqual({ decided: true, value: true });
    expect(when('†data.a && (†data.b || †data.c)', { '†data.a': 1 })).toEqual({
      decided: false,
      waitingFor: ['†data.b', '†data.c'],
    });
  });

  it('reads a reference nothing can write any more as null: the untaken branch is false', () => {
    expect(when('†data.ok', {}, ['†data.ok'])).toEqual({ decided: true, value: false });
    expect(when('!†data.ok', {}, ['†data.ok'])).toEqual({ decided: true, value: true });
    expect(when('†data.ok == null', {}, ['†data.ok'])).toEqual({ decided: true, value: true });
    expect(when('†data.ok || †data.failed', { '†data.failed': { status: 'failed' } }, ['†data.ok'])).toEqual({
      decided: true,
      value: true,
    });
  });
});
