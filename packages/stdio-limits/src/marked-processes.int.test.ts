import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { killMarkedProcesses, markedProcesses } from './marked-processes.js';

describe('markedProcesses / killMarkedProcesses', () => {
  it('finds the processes carrying a variable, those that left the group too, and kills them all', async () => {
    const marker = randomUUID();
    const child = spawn('sh', ['-c', 'sleep 30 & setsid sleep 30 & wait'], {
      env: { PATH: process.env.PATH, WHARF_TEST_MARKER: marker },
      detached: true,
      stdio: 'ignore',
    });
    for (let tries = 0; markedProcesses('WHARF_TEST_MARKER', marker)?.length !== 3 && tries < 100; tries++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const found = markedProcesses('WHARF_TEST_MARKER', marker);
    expect(found).toHaveLength(3);
    expect(found).toContain(child.pid);
    expect(markedProcesses('WHARF_TEST_MARKER', randomUUID())).toEqual([]);

    expect(await killMarkedProcesses('WHARF_TEST_MARKER', marker, { pollMs: 20 })).toBe(3);
    expect(markedProcesses('WHARF_TEST_MARKER', marker)).toEqual([]);
  });
});
