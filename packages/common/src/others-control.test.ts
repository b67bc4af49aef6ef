import { describe, expect, it } from 'vitest';
import { othersControl } from './others-control.js';

describe('othersControl', () => {
  const me = 1000;

  it('lets a file of this user that only it may write through', () => {
    expect(othersControl({ uid: me, mode: 0o40700 }, me)).toBeUndefined();
    expect(othersControl({ uid: me, mode: 0o100644 }, me)).toBeUndefined();
  });

  it('names the owner when another user has it', () => {
    expect(othersControl({ uid: me + 1, mode: 0o40700 }, me)).toBe(
      `belongs to user ${me + 1}, not to this process's user ${me}`,
    );
  });

  it('checks only the mode where there are no user ids', () => {
    expect(othersControl({ uid: 0, mode: 0o40700 }, undefined)).toBeUndefined();
    expect(othersControl({ uid: 0, mode: 0o40777 }, undefined)).toBe('is writable by other users (mode 777)');
  });

  it('names the mode when its group or others may write to it', () => {
    expect(othersControl({ uid: me, mode: 0o40775 }, me)).toBe('is writable by other users (mode 775)');
    expect(othersControl({ uid: me, mode: 0o100602 }, me)).toBe('is writable by other users (mode 602)');
  });
});
