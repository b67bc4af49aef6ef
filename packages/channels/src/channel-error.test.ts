import { describe, expect, it } from 'vitest';
import { ChannelError } from './channel-error.js';

describe('ChannelError', () => {
  it('carries a stable code and message', () => {
    const error = new ChannelError('UNKNOWN_CHANNEL', 'something is wrong');
    expect(error.code).toBe('UNKNOWN_CHANNEL');
    expect(error.message).toBe('something is wrong');
    expect(error.name).toBe('ChannelError');
  });

  it('keeps the cause', () => {
    const cause = new Error('root');
    expect(new ChannelError('UNKNOWN_CHANNEL', 'wrapped', { cause }).cause).toBe(cause);
  });

  it('isInstance recognises its own errors and rejects look-alikes', () => {
    expect(ChannelError.isInstance(new ChannelError('UNKNOWN_CHANNEL', 'x'))).toBe(true);
    expect(ChannelError.isInstance(new Error('x'))).toBe(false);
    expect(ChannelError.isInstance({ code: 'UNKNOWN_CHANNEL', message: 'x' })).toBe(false);
    expect(ChannelError.isInstance(null)).toBe(false);
  });

  it('isInstance sees through realms via the registered symbol', () => {
    const foreign = Object.assign(Object.create(null), { [Symbol.for('@wharf/channels/error')]: true });
    expect(ChannelError.isInstance(foreign)).toBe(true);
  });
});
