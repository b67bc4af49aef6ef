import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parseSwarm, type SwarmResult } from '@wharf/orchestrator';
import { createModelRegistry, type ModelRegistry } from '@wharf/orchestrator/node';
import {
  PROVIDER_USAGE,
  type ProviderReply,
  type ProviderRequest,
  type ProviderServer,
  providerEnv,
  sentTurn,
  startProviderServer,
} from '@wharf/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';

// Agent swarms on a real Temporal server whose model calls go over real HTTP, through the real
// provider packages Wharf's registry builds, to a local server speaking their wire protocols.
const PROMPT = 'Count to 100000 with the shell, then say how far you got.';
const MIDDLE = '50000\\n50001\\n50002'; // a stretch of the shell's output, as JSON writes it

describe('agent swarms on real providers over HTTP', () => {
  let env: SwarmTestEnv;
  let server: ProviderServer;
  let models: ModelRegistry;
  let workdir: string;
  beforeAll(async () => {
    env = await createSwarmTestEnv('provider-http');
    workdir = join(env.dir, 'repo');
    await mkdir(workdir, { recursive: true });
    server = await startProviderServer(() => ({ status: 500, message: 'no responder' }));
    models = createModelRegistry({ env: providerEnv(server) });
  });
  afterAll(async () => {
    await server?.stop();
    await env?.close();
  });

  /** One agent task per model id, each with the shell; returns the result and each model's requests. */
  async function runSwarm(
    name: string,
    ids: string[],
  ): Promise<{ result: SwarmResult; sent: Map<string, ProviderRequest[]> }> {
    const agents = ids.map(
      (id, index) =>
        `  agent${index}: { model: "${id}", system: "You count.", tools: [shell], max_steps: 4 }`,
    );
    const tasks = ids.map((_, index) => `  task${index}: { agent: agent${index}, prompt: "${PROMPT}" }`);
    const definition = parseSwarm(
      [`name: ${name}`, 'on_failure: complete', 'agents:', ...agents, 'tasks:', ...tasks].join('\n'),
    );
    const from = server.requests.length;
    const result = await env.withWorker(
      async () => {
        const { workflowId } = await env.wharf.startSwarm(definition, {}, { workdir });
        return env.wharf.result(workflowId);
      },
      { models },
    );
    const sent = new Map<string, ProviderRequest[]>();
    for (const request of server.requests.slice(from)) {
      const model = String(request.body.model);
      sent.set(model, [...(sent.get(model) ?? []), request]);
    }
    return { result, sent };
  }

  /** Shell first; once its result is back, the answer. */
  const counting = (request: ProviderRequest): ProviderReply =>
    sentTurn(request).toolResults.size === 0
      ? { toolCalls: [{ name: 'shell', input: { command: 'seq 1 100000' } }] }
      : { text: 'Counted to 100000.' };

  it('sends each provider the model, the prompt and the tools, and a tool output cut under the cap', async () => {
    server.respond(counting);
    const ids = [
      'openai:gpt-test',
      'anthropic:claude-test',
      `openai-compatible:${server.url}/v1:llama3.1:8b`,
    ];
    const { result, sent } = await runSwarm('provider-http', ids);
    expect(result.status).toBe('completed');
    for (const [index, model] of ['gpt-test', 'claude-test', 'llama3.1:8b'].entries()) {
      const requests = sent.get(model) ?? [];
      expect(requests.map((request) => request.protocol)).toEqual(
        Array(2).fill(['responses', 'anthropic', 'chat'][index]),
      );
      const [first, second] = requests.map(sentTurn);
      expect(first?.system).toBe('You count.');
      expect(first?.user.join('\n')).toContain(PROMPT);
      expect(first?.tools).toEqual(
        expect.arrayContaining(['shell', 'emit', 'read_input', 'get_tool_output']),
      );
      const [shell] = [...(second?.toolResults.values() ?? [])];
      expect(shell?.startsWith('exit 0\n--- stdout ---\n')).toBe(true);
      expect(Buffer.byteLength(shell ?? '')).toBeLessThan(17_000);
      expect(shell).toMatch(/\[full output: out_[\w-]+ \(588895 bytes\); read it with read_input\]/);
      // The 588 KB body went to the store; no request ever carried it.
      for (const request of requests) expect(request.raw).not.toContain(MIDDLE);
      expect(result.tasks[index]).toMatchObject({
        status: 'done',
        usage: { calls: 2, inputTokens: 2 * PROVIDER_USAGE.input, outputTokens: 2 * PROVIDER_USAGE.output },
      });
    }
  });

  it('fails a task whose key the provider refuses at once, naming the variable to check', async () => {
    server.respond(() => ({ status: 401, message: 'Invalid API key.' }));
    const ids = ['openai:gpt-401', 'anthropic:claude-401', `openai-compatible:${server.url}/v1:local-401`];
    const { result, sent } = await runSwarm('provider-401', ids);
    expect(result.status).toBe('failed');
    for (const [index, [model, variable]] of [
      ['gpt-401', 'OPENAI_API_KEY'],
      ['claude-401', 'ANTHROPIC_API_KEY'],
      ['local-401', 'OPENAI_COMPATIBLE_API_KEY'],
    ].entries()) {
      expect(sent.get(model ?? '')).toHaveLength(1); // not retried: a retry cannot mend a bad key
      expect(result.tasks[index]?.status).toBe('failed');
      expect(result.tasks[index]?.reason).toContain('the provider refused the key (HTTP 401');
      expect(result.tasks[index]?.reason).toContain(`check ${variable}`);
    }
  });

  it('waits as long as a 429 Retry-After says, then calls again', async () => {
    let limited = false;
    server.respond((request) => {
      if (!limited) {
        limited = true;
        return { status: 429, message: 'Rate limit reached.', headers: { 'retry-after': '3' } };
      }
      return counting(request);
    });
    const { result, sent } = await runSwarm('provider-429', ['openai:gpt-429']);
    expect(result.tasks[0]?.status).toBe('done');
    const requests = sent.get('gpt-429') ?? [];
    expect(requests).toHaveLength(3);
    // Temporal's own backoff would retry after 1 s; the provider asked for 3.
    expect((requests[1]?.at ?? 0) - (requests[0]?.at ?? 0)).toBeGreaterThanOrEqual(2_900);
  });

  it('retries a 500 and a dropped connection once each, and never calls again for a step already stored', async () => {
    const failures: ProviderReply[] = [{ status: 500, message: 'The server had an error.' }, { drop: true }];
    server.respond((request) => {
      // The first step answers at once; the second fails twice before it answers.
      if (sentTurn(request).toolResults.size > 0 && failures.length > 0)
        return failures.shift() as ProviderReply;
      return counting(request);
    });
    const { result, sent } = await runSwarm('provider-500', ['openai:gpt-500']);
    expect(result.tasks[0]).toMatchObject({ status: 'done', usage: { calls: 2 } });
    const steps = (sent.get('gpt-500') ?? []).map((request) => sentTurn(request).toolResults.size);
    // Step 0 was paid once and stored; only step 1 went out again, once per failure.
    expect(steps).toEqual([0, 1, 1, 1]);
  });

  it("stops after the retry policy's attempts when the provider keeps failing: one retrier, not two", async () => {
    server.respond(() => ({ status: 503, message: 'Overloaded.' }));
    const { result, sent } = await runSwarm('provider-503', ['openai:gpt-503']);
    // Four attempts of the activity, one request each: the AI SDK's own retries are off.
    expect(sent.get('gpt-503')).toHaveLength(4);
    expect(result.tasks[0]?.status).toBe('failed');
    expect(result.tasks[0]?.reason).toContain('model openai:gpt-503: HTTP 503');
    expect(result.tasks[0]?.reason).toContain('Overloaded.');
  });
});
