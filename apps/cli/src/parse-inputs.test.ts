import { describe, expect, it } from 'vitest';
import { CliError } from './cli-error.js';
import { parseInputs, parseRange } from './parse-inputs.js';

describe('parseInputs', () => {
  it('reads JSON-looking values as JSON and the rest as strings', () => {
    expect(parseInputs(['name=wharf', 'count=3', 'on=true', 'list=[1,2]', 'text="3"', 'eq=a=b'])).toEqual({
      name: 'wharf',
      count: 3,
      on: true,
      list: [1, 2],
      text: '3',
      eq: 'a=b',
    });
  });

  it('keeps malformed JSON as text', () => {
    expect(parseInputs(['broken={nope'])).toEqual({ broken: '{nope' });
  });

  it('rejects pairs without a key', () => {
    expect(() => parseInputs(['=x'])).toThrow(CliError);
    expect(() => parseInputs(['novalue'])).toThrow(/key=value/);
  });
});

describe('parseRange', () => {
  it('parses both sides and open ends', () => {
    expect(parseRange('10-20')).toEqual({ start: 10, end: 20 });
    expect(parseRange('10-')).toEqual({ start: 10 });
    expect(parseRange('-20')).toEqual({ end: 20 });
  });

  it('rejects malformed and reversed ranges', () => {
    expect(() => parseRange('-')).toThrow(/a-b/);
    expect(() => parseRange('x-1')).toThrow(/a-b/);
    expect(() => parseRange('20-10')).toThrow(/before start/);
  });
});
