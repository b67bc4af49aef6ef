import { describe, expect, it } from 'vitest';
import { quietWarnings } from './quiet-warnings.js';

describe('quietWarnings', () => {
  it('drops DEP0123 however it is emitted, and emits every other warning as before', () => {
    const emitted: unknown[][] = [];
    const target = {
      emitWarning: ((...args: unknown[]) => emitted.push(args)) as NodeJS.Process['emitWarning'],
    };
    const undo = quietWarnings(target);
    target.emitWarning(
      'Setting the TLS ServerName to an IP address is not permitted',
      'DeprecationWarning',
      'DEP0123',
    );
    target.emitWarning('IP servername', { type: 'DeprecationWarning', code: 'DEP0123' });
    target.emitWarning('something else', 'DeprecationWarning', 'DEP0005');
    expect(emitted).toEqual([['something else', 'DeprecationWarning', 'DEP0005']]);
    undo();
    target.emitWarning('x', 'DeprecationWarning', 'DEP0123');
    expect(emitted).toHaveLength(2);
  });
});
