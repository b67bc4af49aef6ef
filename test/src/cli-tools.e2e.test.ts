import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const execFileAsync = promisify(execFile);
const cli = fileURLToPath(new URL('../../apps/cli/dist/main.js', import.meta.url));

async function wharf(args: string[], cwd: string, env: Record<string, string> = {}) {
  const { WHARF_TOOLS: _inherited, ...base } = process.env;
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [cli, ...args], {
      cwd,
      timeout: 120_000,
      env: { ...base, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const swarm = (tools: string) =>
  `name: tools-check\nagents:\n  coder: { model: "anthropic:claude-x", tools: [${tools}] }\ntasks:\n  build: { agent: coder, prompt: Build it. }\n`;

describe('wharf run / validate and the tools of the workers', () => {
  let dir: string;
  let address: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-cli-tools-'));
    address = inject('temporalAddress');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("--tools and WHARF_TOOLS name the workers' tools; other names are refused at their line and column", async () => {
    await writeFile(join(dir, 'lookup.yaml'), swarm('shell, lookup'));
    expect((await wharf(['validate', '--tools', 'lookup,files', 'lookup.yaml'], dir)).stdout).toContain(
      'lookup.yaml: ok',
    );
    expect((await wharf(['validate', 'lookup.yaml'], dir, { WHARF_TOOLS: 'lookup' })).code).toBe(0);
    // Named, the list is the whole truth: "lookup" is not on it.
    const refused = await wharf(['validate', 'lookup.yaml'], dir, { WHARF_TOOLS: 'files' });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('3:56 agents.coder.tools[1]: unknown tool "lookup"');
    // The option wins over the variable.
    expect(
      (await wharf(['validate', '--tools', 'lookup', 'lookup.yaml'], dir, { WHARF_TOOLS: 'files' })).code,
    ).toBe(0);
    await writeFile(join(dir, 'lokup.yaml'), swarm('lokup'));
    const typo = await wharf(['run', '--tools', 'lookup', '--address', address, 'lokup.yaml'], dir, {
      ANTHROPIC_API_KEY: 'sk-test',
    });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(
      '3:49 agents.coder.tools[0]: unknown tool "lokup" (did you mean "lookup"?)',
    );
    expect(typo.stderr).not.toContain('started');
    const bad = await wharf(['validate', '--tools', 'a b', 'lookup.yaml'], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--tools must be tool names separated by commas, got "a b".');
  });

  it("without them, validate and run refuse any tool but the built-ins run's own worker offers; a named one the worker lacks fails its task", async () => {
    await writeFile(join(dir, 'shel.yaml'), swarm('shel'));
    const typo = await wharf(['run', '--address', address, 'shel.yaml'], dir, {
      ANTHROPIC_API_KEY: 'sk-test',
    });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('3:49 agents.coder.tools[0]: unknown tool "shel" (did you mean "shell"?)');
    expect(typo.stderr).not.toContain('started');

    // What `wharf run` offers its agents is its own worker's built-ins: `validate` and `run`
    // refuse any other name before anything starts.
    await writeFile(join(dir, 'lookup.yaml'), swarm('shell, lookup'));
    for (const command of [['validate'], ['run', '--address', address]]) {
      const refused = await wharf([...command, 'lookup.yaml'], dir, { ANTHROPIC_API_KEY: 'sk-test' });
      expect(refused.code, command[0]).toBe(2);
      expect(refused.stderr, command[0]).toContain('3:56 agents.coder.tools[1]: unknown tool "lookup"');
      expect(refused.stderr, command[0]).not.toContain('started');
    }
    // Named with --tools it passes the parse; this worker has no such tool, so the task fails
    // when it starts, before any model call, naming the task, the agent and the tool.
    const run = await wharf(
      ['run', '--address', address, '--tools', 'lookup', '--data-dir', join(dir, 'data'), 'lookup.yaml'],
      dir,
      {
        ANTHROPIC_API_KEY: 'sk-test',
      },
    );
    expect(run.stderr).toContain('wharf: started tools-check');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('build: failed');
    expect(run.stdout).toContain(
      'task build (agent coder): unknown tool "lookup"; tools on this worker: built-ins only',
    );
    // Its in-process worker says so in one line, not the SDK's objects of task token and stack.
    expect(run.stderr).toContain('[WARN] Activity failed: agentStart of ');
    expect(run.stderr).not.toContain('taskToken');
    expect(run.stderr.split('\n').filter((line) => line.includes('[WARN]')).length).toBeLessThanOrEqual(2);
  });
});
