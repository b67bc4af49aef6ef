import { APICallError, generateText } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { providerErrors } from './provider-errors.js';

const failing = (error: unknown) =>
  providerErrors(
    new MockLanguageModelV4({
      doGenerate: async () => {
        throw error;
      },
    }),
    { id: 'openai:gpt-test', keyVariable: 'OPENAI_API_KEY' },
  );

async function caught(model: ReturnType<typeof failing>): Promise<unknown> {
  try {
    await generateText({ model, prompt: 'hi', maxRetries: 0 });
  } catch (error) {
    return error;
  }
  throw new Error('no failure');
}

describe('providerErrors', () => {
  it('names the model and the key variable when the key is refused, staying an APICallError', async () => {
    const error = await caught(
      failing(
        new APICallError({
          message: 'Incorrect API key provided',
          url: 'http://p/v1/responses',
          requestBodyValues: {},
          statusCode: 401,
        }),
      ),
    );
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).message).toBe(
      'model openai:gpt-test: the provider refused the key (HTTP 401: Incorrect API key provided); check OPENAI_API_KEY',
    );
    expect((error as APICallError).isRetryable).toBe(false);
    expect((error as APICallError).data).toEqual({ model: 'openai:gpt-test', keyVariable: 'OPENAI_API_KEY' });
  });

  it('keeps status, headers and retryability of other failures', async () => {
    const error = (await caught(
      failing(
        new APICallError({
          message: 'Rate limit reached',
          url: 'http://p/v1/responses',
          requestBodyValues: {},
          statusCode: 429,
          responseHeaders: { 'retry-after': '3' },
        }),
      ),
    )) as APICallError;
    expect(error.message).toBe(
      'model openai:gpt-test: HTTP 429 from http://p/v1/responses: Rate limit reached',
    );
    expect(error.isRetryable).toBe(true);
    expect(error.responseHeaders).toEqual({ 'retry-after': '3' });
    const other = await caught(failing(new TypeError('boom')));
    expect(other).toBeInstanceOf(TypeError);
  });
});
