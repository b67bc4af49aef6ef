import { APICallError, type LanguageModel, type LanguageModelMiddleware, wrapLanguageModel } from 'ai';

/** Any AI SDK language model object (not a gateway id string). */
export type WharfLanguageModel = Exclude<LanguageModel, string>;

/** What {@link providerErrors} adds to a provider's HTTP failures, in the error's `data`. */
export interface ProviderErrorData {
  /** The Wharf model id, e.g. `openai:gpt-4o-mini`. */
  model: string;
  /** The variable holding the key the provider was sent. */
  keyVariable: string;
}

/**
 * A provider model whose HTTP failures say which model failed and what to do: an
 * `APICallError` still (the AI SDK's own retries keep working), with a message naming the
 * model id, the status and the provider's words, and, when the provider refused the key
 * (401, 403), the variable to check. `data` holds {@link ProviderErrorData}.
 *
 * @example
 * ```ts
 * const model = providerErrors(createOpenAI({ apiKey })('gpt-4o-mini'), { id: 'openai:gpt-4o-mini', keyVariable: 'OPENAI_API_KEY' });
 * ```
 */
export function providerErrors(
  model: WharfLanguageModel,
  options: { id: string; keyVariable: string },
): WharfLanguageModel {
  const describe = (error: unknown): unknown => {
    if (!APICallError.isInstance(error)) return error;
    const status = error.statusCode;
    const said = error.message.trim();
    const message =
      status === 401 || status === 403
        ? `model ${options.id}: the provider refused the key (HTTP ${status}: ${said}); check ${options.keyVariable}`
        : status === undefined
          ? `model ${options.id}: ${said} (${error.url})`
          : `model ${options.id}: HTTP ${status} from ${error.url}: ${said}`;
    const data: ProviderErrorData = { model: options.id, keyVariable: options.keyVariable };
    return new APICallError({
      message,
      url: error.url,
      requestBodyValues: error.requestBodyValues,
      ...(status === undefined ? {} : { statusCode: status }),
      ...(error.responseHeaders === undefined ? {} : { responseHeaders: error.responseHeaders }),
      ...(error.responseBody === undefined ? {} : { responseBody: error.responseBody }),
      cause: error,
      isRetryable: error.isRetryable,
      data,
    });
  };
  const middleware: LanguageModelMiddleware = {
    specificationVersion: 'v4',
    wrapGenerate: async ({ doGenerate }) => {
      try {
        return await doGenerate();
      } catch (error) {
        throw describe(error);
      }
    },
    wrapStream: async ({ doStream }) => {
      try {
        return await doStream();
      } catch (error) {
        throw describe(error);
      }
    },
  };
  return wrapLanguageModel({ model, middleware });
}
