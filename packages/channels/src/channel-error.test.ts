import { describe, expect, it } from 'vitest';
import {
  ChannelError,
  InvalidConcurrentUpdateError,
  InvalidUpdateError,
  NotJsonError,
  SnapshotError,
  UnknownChannelError,
} from './channel-error.js';

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

describe('ChannelError subclasses', () => {
  it('each is a ChannelError with its code, recognised by its own isInstance', () => {
    const unknown = new UnknownChannelError('plna', ['plan', 'log']);
    const conflict = new InvalidConcurrentUpdateError({
      channel: 'plan',
      kind: 'LastValue',
      step: 3,
      writers: ['"a"', '"b"'],
    });
    const invalid = new InvalidUpdateError('tokens', 'a Delta channel adds numbers');
    const notJson = new NotJsonError('write to channel "plan".at', 'an instance of Date');
    const snapshot = new SnapshotError('UNSUPPORTED_SNAPSHOT_VERSION', 'version 9');
    expect(unknown.code).toBe('UNKNOWN_CHANNEL');
    expect(unknown.message).toContain('"plna"');
    expect(unknown.message).toContain('"plan", "log"');
    expect(conflict.code).toBe('INVALID_CONCURRENT_UPDATE');
    expect(conflict.message).toContain('step 3');
    expect(invalid.code).toBe('INVALID_UPDATE');
    expect(notJson.code).toBe('NOT_JSON');
    for (const error of [unknown, conflict, invalid, notJson, snapshot]) {
      expect(ChannelError.isInstance(error)).toBe(true);
    }
    expect(UnknownChannelError.isInstance(unknown)).toBe(true);
    expect(UnknownChannelError.isInstance(conflict)).toBe(false);
    expect(InvalidConcurrentUpdateError.isInstance(conflict)).toBe(true);
    expect(InvalidUpdateError.isInstance(invalid)).toBe(true);
    expect(NotJsonError.isInstance(notJson)).toBe(true);
    expect(SnapshotError.isInstance(snapshot)).toBe(true);
    expect(SnapshotError.isInstance(invalid)).toBe(false);
  });

  it('lists at most twenty known names', () => {
    const names = Array.from({ length: 30 }, (_, index) => `c${index}`);
    expect(new UnknownChannelError('x', names).message).toContain('(30 in all)');
  });
});
