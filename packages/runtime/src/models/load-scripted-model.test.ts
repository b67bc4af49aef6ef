import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateText, isStepCount, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadScriptedModel } from './load-scripted-model.js';
import { ModelError } from './model-error.js';

describe('loadScriptedModel', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-scripted-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function failure(text: string): Promise<ModelError> {
    await writeFile(join(dir, 'bad.yaml'), text);
    try {
      loadScriptedModel('bad.yaml', { cwd: dir });
    } catch (error) {
      if (ModelError.isInstance(error)) return error;
      throw error;
    }
    throw new Error('loaded');
  }

  it('replays a YAML file of replies and tool calls', async () => {
    await writeFile(
      join(dir, 'good.yaml'),
      'replies:\n  - tool_calls: [{ tool: shell, input: { command: ls } }]\n  - text: two files\n    usage: { input_tokens: 5, output_tokens: 2 }\n',
    );
    const model = loadScriptedModel('good.yaml', { cwd: dir });
    expect(model.modelId).toBe('scripted:good.yaml');
    const commands: string[] = [];
    const shell = tool({
      inputSchema: z.object({ command: z.string() }),
      execute: async ({ command }) => {
        commands.push(command);
        return 'a\nb';
      },
    });
    const result = await generateText({ model, prompt: 'go', tools: { shell }, stopWhen: isStepCount(3) });
    expect(commands).toEqual(['ls']);
    expect(result.text).toBe('two files');
    expect(result.steps[1]?.usage).toMatchObject({ inputTokens: 5, outputTokens: 2 });
  });

  it('names the line, column and field of each problem', async () => {
    const error = await failure(
      'replies:\n  - text: fine\n  - tool_calls:\n      - { input: { a: 1 } }\n  - { txt: typo }\n',
    );
    expect(error.code).toBe('INVALID_SCRIPTED_MODEL');
    expect(error.file).toBe(join(dir, 'bad.yaml'));
    expect(error.issues.map((issue) => [issue.line, issue.path])).toEqual([
      [4, 'replies[1].tool_calls[0].tool'],
      [5, 'replies[2]'],
      [5, 'replies[2]'],
    ]);
    expect(error.message).toContain('4:9 replies[1].tool_calls[0].tool: must name the tool to call');
    expect(error.message).toContain('Unrecognized key: "txt"');
  });

  it('names YAML syntax errors, a missing file and an empty script', async () => {
    expect((await failure('replies: [ { text: a }\n')).message).toMatch(/\d+:\d+ YAML: /);
    expect((await failure('replies: []\n')).message).toContain(
      'replies: a scripted model needs at least one reply',
    );
    expect((await failure('')).message).toContain('replies:');
    let caught: unknown;
    try {
      loadScriptedModel('nowhere.yaml', { cwd: dir });
    } catch (error) {
      caught = error;
    }
    expect((caught as ModelError).message).toMatch(/nowhere\.yaml .* cannot be read: ENOENT/s);
  });
});
