import { describe, expect, it } from 'vitest';
import { applyOutput } from './apply-output.js';
import { ContextLog } from './context-log.js';
import { ContextResolverError } from './context-resolver-error.js';
import { renderForModel } from './render-for-model.js';
import { validateOutputPath } from './validate-output-path.js';

function codeOf(work: () => unknown): string | undefined {
  try {
    work();
  } catch (error) {
    if (ContextResolverError.isInstance(error)) return error.code;
    throw error;
  }
  return undefined;
}

describe('validateOutputPath', () => {
  it('dynamic path: accepts what the pattern allows', () => {
    const schema = { type: 'string', description: 'Where to store the summary.', pattern: '^†' };
    expect(validateOutputPath(schema, '†data.user.summary').success).toEqual([
      { kind: 'data', path: ['user', 'summary'] },
    ]);
    expect(codeOf(() => validateOutputPath({ type: 'string', pattern: '^†state\\.' }, '†data.x'))).toBe(
      'OUTPUT_PATH_NOT_ALLOWED',
    );
  });

  it('prescribed path: only the const', () => {
    const tool = {
      type: 'object',
      properties: { _outputPath: { type: 'string', const: '†data.user.summary' } },
    };
    expect(validateOutputPath(tool, '†data.user.summary').success).toHaveLength(1);
    expect(() => validateOutputPath(tool, '†data.user.other')).toThrow(/prescribes "†data.user.summary"/);
  });

  it('enum lists the allowed paths', () => {
    const schema = { type: 'string', enum: ['†data.a', '†data.b || †data.err'] };
    expect(validateOutputPath(schema, '†data.b || †data.err').failure).toEqual([
      { kind: 'data', path: ['err'] },
    ]);
    expect(codeOf(() => validateOutputPath(schema, '†data.c'))).toBe('OUTPUT_PATH_NOT_ALLOWED');
  });

  it('a tool without _outputPath allows none; broken schemas and paths are typed errors', () => {
    expect(codeOf(() => validateOutputPath({ type: 'object', properties: {} }, '†data.a'))).toBe(
      'OUTPUT_PATH_NOT_ALLOWED',
    );
    expect(codeOf(() => validateOutputPath({ type: 'string', pattern: '(' }, '†data.a'))).toBe(
      'INVALID_SCHEMA',
    );
    expect(codeOf(() => validateOutputPath({ type: 'number' }, '†data.a'))).toBe('INVALID_SCHEMA');
    expect(codeOf(() => validateOutputPath({ type: 'string', pattern: '^†' }, '†data.'))).toBe(
      'INVALID_EXPRESSION',
    );
  });
});

describe('renderForModel', () => {
  it('drops every _-prefixed key of each message and keeps data keys', () => {
    const context = new ContextLog([{ type: 'user', content: 'hi', _id: 'm1' }]);
    applyOutput(context, { _tool: 't', _outputPath: '†data._private.x' }, 1, {
      date: '2025-10-26T12:00:00Z',
    });
    expect(renderForModel(context)).toEqual([
      { type: 'user', content: 'hi' },
      { type: 'data', data: { _private: { x: 1 } } },
    ]);
    expect(context.messages[1]?._call).toBeDefined();
  });
});
