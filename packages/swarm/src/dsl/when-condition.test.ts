import { describe, expect, it } from 'vitest';
import { InvalidConditionError } from './invalid-condition-error.js';
import { conditionAsExpression, conditionReferences, parseWhen } from './when-condition.js';

describe('parseWhen', () => {
  it('parses comparisons, negation and boolean operators with && binding tighter than ||', () => {
    const condition = parseWhen("†data.lint.exitCode == 0 && !†input.skip || †input.force == 'yes'");
    expect(condition).toMatchObject({
      type: 'or',
      operands: [
        {
          type: 'and',
          operands: [
            { type: 'compare', operator: '==', left: { type: 'reference', text: '†data.lint.exitCode' } },
            { type: 'not', operand: { type: 'reference', text: '†input.skip' } },
          ],
        },
        { type: 'compare', right: { type: 'literal', value: 'yes' } },
      ],
    });
  });

  it('reads every literal form and a reference right before an operator', () => {
    expect(parseWhen('†a.n>=-1.5')).toMatchObject({
      type: 'compare',
      operator: '>=',
      left: { type: 'reference', reference: { kind: 'a', path: ['n'] } },
      right: { type: 'literal', value: -1.5 },
    });
    expect(parseWhen('"x" != null')).toMatchObject({ right: { value: null }, left: { value: 'x' } });
    expect(parseWhen('(true)')).toEqual({ type: 'literal', value: true });
  });

  it('refuses malformed conditions with the position and what was expected', () => {
    const cases: [string, number, string][] = [
      ['†data.x ==', 10, "a reference '†kind.path', a literal or '('"],
      ['†data.x && (†data.y', 19, "')'"],
      ["†data.x == 'open", 16, "closing '"],
      ['†data.', 6, 'a key after "."'],
      ['†1 == 1', 1, 'a kind name (letter or _)'],
      ['yes', 0, "a reference '†kind.path', a literal or '('"],
      ['†a.b †c', 5, "'||', '&&', a comparison or end of condition"],
      ['†a.b+1', 4, "'||', '&&', a comparison or end of condition"],
    ];
    for (const [text, position, expected] of cases) {
      let caught: unknown;
      try {
        parseWhen(text);
      } catch (error) {
        caught = error;
      }
      expect(InvalidConditionError.isInstance(caught), text).toBe(true);
      expect((caught as InvalidConditionError).code).toBe('INVALID_CONDITION');
      expect((caught as InvalidConditionError).position, text).toBe(position);
      expect((caught as InvalidConditionError).expected, text).toBe(expected);
    }
  });
});

describe('conditionReferences and conditionAsExpression', () => {
  it('lists references once and keeps || as the only place one side suffices', () => {
    const condition = parseWhen('†a.x == †b && (†c || †d) || !†a.x');
    expect(conditionReferences(condition)).toEqual(['†a.x', '†b', '†c', '†d']);
    expect(conditionAsExpression(condition)).toMatchObject({
      type: 'or',
      operands: [
        { type: 'and', operands: [{ type: 'and' }, { type: 'or' }] },
        { type: 'reference', text: '†a.x' },
      ],
    });
  });

  it('needs nothing when a side of || is a bare literal or there is no reference', () => {
    expect(conditionAsExpression(parseWhen('†a || true'))).toBeUndefined();
    expect(conditionAsExpression(parseWhen('1 == 1'))).toBeUndefined();
  });
});
