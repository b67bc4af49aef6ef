import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerEventSchema, runEventSchema } from '@wharf/orchestrator';
import { type ProviderServer, startProviderServer } from '@wharf/runtime/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const cli = fileURLToPath(new URL('../../apps/cli/dist/main.js', import.meta.url));
const words = Array.from({ length: 60 }, (_, index) => `w${index} `);
const answer = words.join('');

/** Runs `wharf` to its end, keeping each stdout piece with when it came. */
function wharf(
  args: string[],
  cwd: string,
): Promise<{ code: number | null; pieces: { at: number; text: string }[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd,
      env: { ...process.env, OPENAI_COMPATIBLE_API_KEY: 'sk-test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const pieces: { at: number; text: string }[] = [];
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => pieces.push({ at: Date.now(), text }));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, pieces }));
  });
}

describe("wharf run --follow shows an agent's answer while the model writes it", () => {
  let provider: ProviderServer;
  let dir: string;
  beforeAll(async () => {
    // One word every 40 ms over server-sent events: 2.4 s for the answer.
    provider = await startProviderServer(() => ({ text: answer, pieces: words, everyMs: 40 }));
    dir = await mkdtemp(join(tmpdir(), 'wharf-follow-answers-'));
    await writeFile(
      join(dir, 'swarm.yaml'),
      `name: answers\nagents:\n  writer: { model: "openai-compatible:${provider.url}/v1:steady" }\ntasks:\n  draft: { agent: writer, prompt: "Write." }\n`,
    );
  });
  afterAll(async () => {
    await provider?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('prints the text as it comes, each line led by its writer, before the model has finished', async () => {
    const address = inject('temporalAddress');
    const run = await wharf(
      ['run', 'swarm.yaml', '--follow', '--address', address, '--data-dir', '.wharf'],
      dir,
    );
    expect(run.code).toBe(0);
    const request = provider.requests.find((entry) => entry.stream);
    const lastWritten = request?.written.at(-1)?.at ?? 0;
    const firstShown = run.pieces.find((piece) => piece.text.includes('draft │ w0 '));
    expect(firstShown).toBeDefined();
    // Shown while the model was still writing: well before its last word.
    expect(firstShown?.at ?? Number.POSITIVE_INFINITY).toBeLessThan(lastWritten - 500);
    const text = run.pieces.map((piece) => piece.text).join('');
    expect(text).toContain(`draft │ ${answer}`);
    expect(text.split('w59 ').length).toBe(2);
  });

  it('with --json, prints the run events and the answer as wharf.answers/v1 lines, each chunk once', async () => {
    const address = inject('temporalAddress');
    const run = await wharf(
      ['run', 'swarm.yaml', '--follow', '--json', '--address', address, '--data-dir', '.wharf'],
      dir,
    );
    expect(run.code).toBe(0);
    const lines = run.pieces
      .map((piece) => piece.text)
      .join('')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { schema?: string; type?: string });
    const answers = lines
      .filter((line) => line.schema === 'wharf.answers/v1')
      .map((line) => answerEventSchema.parse(line));
    const events = lines
      .filter((line) => line.schema === 'wharf.events/v1')
      .map((line) => runEventSchema.parse(line));
    const types = events.map((event) => event.type);
    // The agent's model step, from its own history, just before its task's end.
    expect(types.slice(types.indexOf('agent.step'), types.indexOf('agent.step') + 2)).toEqual([
      'agent.step',
      'task.finished',
    ]);
    expect(events.find((event) => event.type === 'agent.step')).toMatchObject({
      step: 0,
      finishReason: 'stop',
      label: 'draft',
    });
    const chunks = answers.filter((event) => event.type === 'answer.text');
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((event) => event.text).join('')).toBe(answer);
    expect(chunks.map((event) => event.seq)).toEqual(chunks.map((_, index) => index));
    expect(new Set(chunks.map((event) => `${event.label} ${event.attempt}`))).toEqual(new Set(['draft 1']));
  });
});
