import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envWithoutModels, runWharf } from './wharf-cli.js';

// Real `wharf` processes (apps/cli/dist, so `pnpm build` first); none of these needs a server:
// every model problem is refused before anything starts.
const root = fileURLToPath(new URL('../../', import.meta.url));
const health = join(root, 'examples', 'repo-health.yaml');
const review = join(root, 'examples', 'dependency-review.yaml');

describe('wharf --model: bad models exit 2 naming what to fix', { timeout: 120_000 }, () => {
  let dir: string;
  const env = envWithoutModels();
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-cli-models-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('validate --model applies the overrides and prints the definition that would run', async () => {
    const run = await runWharf(['validate', health, '--model', 'echo', '--json'], dir, { env });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).agents.reviewer.model).toBe('echo');
    const split = await runWharf(
      ['validate', review, '--model', 'reviewer=scripted:m.yaml', '--model', 'openai:gpt-4o', '--json'],
      dir,
      { env: { ...env, OPENAI_API_KEY: 'sk-test' } },
    );
    // A relative scripted file is made absolute, so any worker finds it; the file is checked.
    expect(split.code).toBe(2);
    expect(split.stderr).toContain(`agents.reviewer.model: scripted model file ${join(dir, 'm.yaml')}`);
    expect(split.stderr).toContain('cannot be read: ENOENT');
  });

  it('validate --model names the missing key, and plain validate does not ask for keys', async () => {
    const missing = await runWharf(['validate', health, '--model', 'anthropic:claude-sonnet-4-5'], dir, {
      env,
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      'agents.reviewer.model: model "anthropic:claude-sonnet-4-5" needs ANTHROPIC_API_KEY in the environment',
    );
    expect((await runWharf(['validate', health], dir, { env })).code).toBe(0);
    const fromEnv = await runWharf(['validate', health], dir, {
      env: { ...env, WHARF_MODEL: 'openai:gpt-4o' },
    });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain('needs OPENAI_API_KEY');
  });

  it.each([
    [['--model', 'gemini:pro'], '--model: model id "gemini:pro": unknown provider "gemini"'],
    [['--model', 'gpt-4o'], '--model: model id "gpt-4o" names no provider'],
    [
      ['--model', 'reviwer=echo'],
      '--model: swarm repo-health has no agent "reviwer" (did you mean "reviewer"?)',
    ],
    [['--model', 'echo', '--model', 'openai:gpt-4o'], '--model: two models for every agent'],
    [['--summarizer', 'openai:'], '--summarizer: model id "openai:" names no model'],
  ])('validate %j is refused', async (args, message) => {
    const run = await runWharf(['validate', health, ...args], dir, { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr).not.toContain('unexpected error');
  });

  it('names WHARF_MODEL when the variable is the bad one', async () => {
    const run = await runWharf(['validate', health], dir, { env: { ...env, WHARF_MODEL: 'llama3' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('WHARF_MODEL: model id "llama3" names no provider');
  });

  it('names the line and field of a malformed scripted model file', async () => {
    await writeFile(join(dir, 'bad.yaml'), 'replies:\n  - text: ok\n  - tool_calls: [{ name: shell }]\n');
    const run = await runWharf(['validate', health, '--model', 'scripted:bad.yaml'], dir, { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('3:18 replies[1].tool_calls[0].tool: must name the tool to call');
    expect(run.stderr).toContain('Unrecognized key: "name"');
  });

  it('run refuses a model whose key is missing before it starts anything', async () => {
    const run = await runWharf(
      ['run', review, '--data-dir', join(dir, 'data'), '--address', '127.0.0.1:1'],
      dir,
      {
        env,
      },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('agents.reviewer.model: model "openai:gpt-4o-mini" needs OPENAI_API_KEY');
    expect(run.stderr).not.toContain('starting');
  });
});
