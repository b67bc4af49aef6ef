import {
  type LanguageModelV4GenerateResult,
  type LanguageModelV4StreamPart,
  UnsupportedFunctionalityError,
} from '@ai-sdk/provider';
import { generateText, tool } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { localModel } from './local-model.js';
import { cannotStream, streamedGenerate, type ToolInputPart } from './streamed-generate.js';

const usage = {
  inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 7, text: 7, reasoning: 0 },
};

const parts: LanguageModelV4StreamPart[] = [
  { type: 'stream-start', warnings: [] },
  { type: 'response-metadata', id: 'resp-1', modelId: 'streamer', timestamp: new Date(0) },
  { type: 'reasoning-start', id: 'r' },
  { type: 'reasoning-delta', id: 'r', delta: 'thinking' },
  { type: 'reasoning-end', id: 'r' },
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: 'Hel' },
  { type: 'text-delta', id: 't', delta: 'lo, ' },
  { type: 'text-delta', id: 't', delta: 'world' },
  { type: 'text-end', id: 't' },
  { type: 'tool-input-start', id: 'c1', toolName: 'lookup' },
  { type: 'tool-input-delta', id: 'c1', delta: '{"q":' },
  { type: 'tool-input-delta', id: 'c1', delta: '"tides"}' },
  { type: 'tool-input-end', id: 'c1' },
  { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: '{"q":"tides"}' },
  { type: 'finish', usage, finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
];

const generated: LanguageModelV4GenerateResult = {
  content: [
    { type: 'reasoning', text: 'thinking' },
    { type: 'text', text: 'Hello, world' },
    { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: '{"q":"tides"}' },
  ],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage,
  warnings: [],
  response: { id: 'resp-1', modelId: 'streamer', timestamp: new Date(0) },
};

const tools = {
  lookup: tool({ inputSchema: z.object({ q: z.string() }), execute: async ({ q }) => `found ${q}` }),
};

describe('streamedGenerate', () => {
  it("gives generateText the same result from the model's stream as from its generate call, telling the deltas in order", async () => {
    const texts: string[] = [];
    const inputs: ToolInputPart[] = [];
    const streaming = new MockLanguageModelV4({
      doStream: async () => ({ stream: convertArrayToReadableStream(parts) }),
    });
    const streamed = await generateText({
      model: streamedGenerate(streaming, {
        text: (delta) => void texts.push(delta),
        toolInput: (part) => void inputs.push(part),
      }),
      prompt: 'hi',
      tools,
    });
    const plain = await generateText({
      model: new MockLanguageModelV4({ doGenerate: generated }),
      prompt: 'hi',
      tools,
    });

    expect(streaming.doStreamCalls).toHaveLength(1);
    expect(texts).toEqual(['Hel', 'lo, ', 'world']);
    expect(inputs).toEqual([
      { type: 'start', id: 'c1', toolName: 'lookup' },
      { type: 'delta', id: 'c1', delta: '{"q":' },
      { type: 'delta', id: 'c1', delta: '"tides"}' },
      { type: 'end', id: 'c1' },
    ]);
    expect(streamed.text).toBe('Hello, world');
    expect(streamed.reasoningText).toBe('thinking');
    expect(
      streamed.toolCalls.map(({ toolCallId, toolName, input }) => ({ toolCallId, toolName, input })),
    ).toEqual([{ toolCallId: 'c1', toolName: 'lookup', input: { q: 'tides' } }]);
    expect(streamed.finishReason).toBe(plain.finishReason);
    expect(streamed.usage).toEqual(plain.usage);
    expect(streamed.response.id).toBe('resp-1');
    expect(streamed.response.messages).toEqual(plain.response.messages);
  });

  it('answers through doGenerate when the model cannot stream, without a second provider call', async () => {
    const mock = new MockLanguageModelV4({ doGenerate: generated });
    const texts: string[] = [];
    const result = await generateText({
      model: streamedGenerate(mock, { text: (delta) => void texts.push(delta) }),
      prompt: 'hi',
      tools,
    });
    expect(result.text).toBe('Hello, world');
    expect(mock.doStreamCalls).toHaveLength(1);
    expect(mock.doGenerateCalls).toHaveLength(1);
    expect(texts).toEqual([]);
  });

  it("throws a stream's error part as the call's error, and a provider's refusal to stream is not a fallback", async () => {
    const failing = new MockLanguageModelV4({
      doStream: async () => ({
        stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([
          { type: 'stream-start', warnings: [] },
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'half' },
          { type: 'error', error: new Error('connection reset mid-answer') },
        ]),
      }),
      doGenerate: generated,
    });
    await expect(
      generateText({ model: streamedGenerate(failing, {}), prompt: 'hi', maxRetries: 0 }),
    ).rejects.toThrow('connection reset mid-answer');
    expect(failing.doGenerateCalls).toHaveLength(0);

    const refused = new MockLanguageModelV4({
      doStream: async () => {
        throw new Error('HTTP 429: slow down');
      },
      doGenerate: generated,
    });
    await expect(
      generateText({ model: streamedGenerate(refused, {}), prompt: 'hi', maxRetries: 0 }),
    ).rejects.toThrow('HTTP 429');
    expect(refused.doGenerateCalls).toHaveLength(0);
  });

  it("streams Wharf's local models (echo, scripted:) as their doStream sends them", async () => {
    const model = localModel({
      provider: 'wharf',
      modelId: 'two-part',
      answer: () => ({ content: [{ type: 'text', text: 'local answer' }], inputTokens: 1, outputTokens: 2 }),
    });
    const texts: string[] = [];
    const result = await generateText({
      model: streamedGenerate(model, { text: (delta) => void texts.push(delta) }),
      prompt: 'x',
    });
    expect(result.text).toBe('local answer');
    expect(texts).toEqual(['local answer']);
  });

  it('asks again without streaming when the server answered one JSON body instead of events', async () => {
    const mock = new MockLanguageModelV4({
      doStream: async () => ({
        stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([
          { type: 'error', error: new Error('Response stream ended without a finish reason.') },
        ]),
        response: { headers: { 'Content-Type': 'application/json; charset=utf-8' } },
      }),
      doGenerate: generated,
    });
    const result = await generateText({ model: streamedGenerate(mock, {}), prompt: 'hi', tools });
    expect(result.text).toBe('Hello, world');
    expect(mock.doGenerateCalls).toHaveLength(1);
  });

  it('knows which errors mean the model cannot stream', () => {
    expect(cannotStream(new UnsupportedFunctionalityError({ functionality: 'streaming' }))).toBe(true);
    expect(cannotStream(new Error('Not implemented'))).toBe(true);
    expect(cannotStream(new Error('Not implemented yet, try later'))).toBe(false);
    expect(cannotStream(new TypeError('Not implemented'))).toBe(false);
  });
});
