import { describe, expect, it } from 'vitest';
import { applyOutput, ContextLog, renderForModel, resolveCall } from './index.js';

describe('README example', () => {
  it('behaves as the README says', () => {
    const context = new ContextLog([{ type: 'data', data: { user: { name: 'Alex', status: 'active' } } }]);
    const call = { _tool: 'updateUserStatus', newStatus: 'inactive', _outputPath: '†data.user.status' };
    applyOutput(context, call, 'inactive', { date: '2025-10-26T12:00:00Z' });
    expect(context.resolve('†data.user')).toEqual({
      found: true,
      value: { name: 'Alex', status: 'inactive' },
    });
    applyOutput(context, { _outputPath: '†state.log', _outputMethod: 'push' }, 'step 1', {
      date: '2025-10-26T12:00:01Z',
    });
    expect(
      resolveCall(context, { _tool: 'notify', text: 'Hi †data.user.name', log: '†state.log && †data.user' }),
    ).toEqual({
      status: 'ready',
      call: { _tool: 'notify', text: 'Hi Alex', log: { name: 'Alex', status: 'inactive' } },
    });
    expect(resolveCall(context, { _tool: 'summarize', doc: '†input.doc || †data.doc' })).toMatchObject({
      status: 'not-ready',
      missing: ['†input.doc', '†data.doc'],
    });
    expect(renderForModel(context)).toEqual([
      { type: 'data', data: { user: { name: 'Alex', status: 'active' } } },
      { type: 'data', data: { user: { status: 'inactive' } } },
      { type: 'state', data: { log: 'step 1' } },
    ]);
  });
});
