import { createModelRegistry, type ModelRegistry } from '@wharf/orchestrator/node';
import {
  type ProviderRequest,
  type ProviderServer,
  providerEnv,
  sentTurn,
  startProviderServer,
} from '@wharf/runtime/testing';
import { generateText, isStepCount, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

// The real @ai-sdk/openai (Responses), @ai-sdk/openai-compatible (chat completions) and
// @ai-sdk/anthropic (messages) packages, built by Wharf's model registry, against a local server
// speaking their wire protocols over real HTTP: one tool round trip each, streamed and not.
const models = [
  { id: 'openai:gpt-test', protocol: 'responses', auth: ['authorization', 'Bearer sk-test'] },
  { id: 'anthropic:claude-test', protocol: 'anthropic', auth: ['x-api-key', 'ak-test'] },
  {
    id: 'openai-compatible:URL/v1:llama3.1:8b',
    protocol: 'chat',
    auth: ['authorization', 'Bearer local-key'],
  },
] as const;

describe('provider wire protocols through the model registry', () => {
  let server: ProviderServer;
  let registry: ModelRegistry;
  beforeAll(async () => {
    server = await startProviderServer(() => ({ text: 'unused' }));
    registry = createModelRegistry({ env: providerEnv(server) });
  });
  afterAll(async () => {
    await server?.stop();
  });

  // First call: a tool call (with text before it); once the tool result is back: the answer.
  const answer = (request: ProviderRequest) =>
    sentTurn(request).toolResults.size === 0
      ? { text: 'Adding.', toolCalls: [{ name: 'add', input: { a: 2, b: 3 } }] }
      : { text: `The sum is ${[...sentTurn(request).toolResults.values()][0]}.` };

  const cases = models.flatMap((model) => [
    { ...model, stream: false },
    { ...model, stream: true },
  ]);

  it.each(cases)('$id (stream: $stream) calls a tool and answers', async ({ id, protocol, auth, stream }) => {
    server.respond(answer);
    const from = server.requests.length;
    const seen: unknown[] = [];
    const add = tool({
      description: 'Adds two numbers.',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      execute: async (input) => {
        seen.push(input);
        return String(input.a + input.b);
      },
    });
    const options = {
      model: registry.resolve(id.replace('URL', server.url)),
      system: 'You add.',
      prompt: 'What is 2 + 3?',
      tools: { add },
      stopWhen: isStepCount(3),
      maxRetries: 0,
    };
    if (stream) {
      const result = streamText(options);
      expect(await result.text).toBe('The sum is 5.');
      expect(await result.totalUsage).toMatchObject({ inputTokens: 200, outputTokens: 20 });
    } else {
      const result = await generateText(options);
      expect(result.text).toBe('The sum is 5.');
      expect(result.totalUsage).toMatchObject({ inputTokens: 200, outputTokens: 20 });
    }
    expect(seen).toEqual([{ a: 2, b: 3 }]);

    const requests = server.requests.slice(from);
    expect(requests.map((request) => [request.protocol, request.stream])).toEqual([
      [protocol, stream],
      [protocol, stream],
    ]);
    const [first, second] = requests.map(sentTurn);
    expect(first?.model).toBe(id.split(':').at(-1) === '8b' ? 'llama3.1:8b' : id.split(':')[1]);
    expect(first?.system).toBe('You add.');
    expect(first?.user).toEqual(['What is 2 + 3?']);
    expect(first?.tools).toEqual(['add']);
    expect([...(second?.toolResults.values() ?? [])]).toEqual(['5']);
    for (const request of requests) expect(request.headers[auth[0]]).toBe(auth[1]);
  });
});
