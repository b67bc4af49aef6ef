import { describe, expect, it } from 'vitest';
import { parseSwarm } from '../dsl/parse-swarm.js';
import { mergeSandboxSettings } from './sandbox-schema.js';

describe('sandbox settings', () => {
  it('are read at swarm and task level, and the task wins key by key', () => {
    const swarm = parseSwarm(`
name: s
sandbox: { max_processes: 64, filesystem: { hide: [/srv/keys] } }
tasks:
  fetch:
    script: { content: curl -s https://example.org }
    sandbox: { network: allow, filesystem: { root: minimal, read_only: [/opt/tools] } }
`);
    expect(mergeSandboxSettings(swarm.sandbox, swarm.tasks.fetch?.sandbox)).toEqual({
      network: 'allow',
      max_processes: 64,
      filesystem: { root: 'minimal', hide: ['/srv/keys'], read_only: ['/opt/tools'] },
    });
  });

  it('refuse unknown keys and relative paths', () => {
    expect(() =>
      parseSwarm('name: s\nsandbox: { network: some }\ntasks: { a: { script: { content: x } } }'),
    ).toThrow(/network/);
    expect(() =>
      parseSwarm(
        'name: s\nsandbox: { filesystem: { hide: [keys] } }\ntasks: { a: { script: { content: x } } }',
      ),
    ).toThrow(/absolute path/);
  });
});
