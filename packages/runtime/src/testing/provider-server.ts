import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The three wire protocols the server speaks. */
export type ProviderProtocol = 'chat' | 'responses' | 'anthropic';

/** One request the server received, as sent. */
export interface ProviderRequest {
  protocol: ProviderProtocol;
  path: string;
  headers: IncomingMessage['headers'];
  /** The parsed JSON body (model, messages or input, tools, stream, …). */
  body: Record<string, unknown>;
  /** The raw body, for size and content checks. */
  raw: string;
  stream: boolean;
  /** `Date.now()` when it arrived. */
  at: number;
  /** A streamed answer: each server-sent event as written, with when (epoch ms, sub-ms precision). */
  written: { at: number; data: string }[];
}

/** What the server answers: a model turn, an HTTP error, or a dropped connection. */
export type ProviderReply =
  | {
      text?: string;
      toolCalls?: { name: string; input: Record<string, unknown> }[];
      /**
       * The text's deltas when streamed (they must join to `text`); default: the text in two
       * halves. With `everyMs`, a steady model: each event written that long after the last.
       */
      pieces?: string[];
      /** Streamed: wait this long before each event (a model writing at a steady rate). */
      everyMs?: number;
      /** Streamed: wait this long before the first event (a model's time to first token). */
      firstAfterMs?: number;
    }
  | { status: number; message: string; headers?: Record<string, string> }
  | { drop: true };

/** A running provider server. */
export interface ProviderServer {
  /** `http://127.0.0.1:<port>`; the APIs live under `/v1`. */
  url: string;
  /** Every request received, in order. */
  requests: ProviderRequest[];
  /** Replaces how requests are answered. */
  respond(handler: (request: ProviderRequest) => ProviderReply): void;
  stop(): Promise<void>;
}

/** Tokens every answer reports: 100 in, 10 out. */
export const PROVIDER_USAGE = { input: 100, output: 10 };

const ROUTES: Record<string, ProviderProtocol> = {
  '/v1/chat/completions': 'chat',
  '/v1/responses': 'responses',
  '/v1/messages': 'anthropic',
};

/**
 * A local HTTP server speaking the model providers' wire protocols, for the tests of the real
 * provider path: OpenAI chat completions (also what `openai-compatible:` servers such as Ollama
 * and vLLM speak), OpenAI Responses, and Anthropic messages, each with tool calls, streamed
 * (server-sent events) when the request says `stream: true` and as one JSON body otherwise.
 * `respond` decides each answer from the request; errors come back in the provider's own error
 * shape. Every request is kept in `requests`.
 *
 * @example
 * ```ts
 * const server = await startProviderServer(() => ({ text: 'hello' }));
 * createModelRegistry({ env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${server.url}/v1` } });
 * ```
 */
export async function startProviderServer(
  handler: (request: ProviderRequest) => ProviderReply,
): Promise<ProviderServer> {
  let respond = handler;
  const requests: ProviderRequest[] = [];
  let calls = 0;
  const server: Server = createServer(async (incoming, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const protocol = ROUTES[(incoming.url ?? '').split('?')[0] ?? ''];
    if (incoming.method !== 'POST' || protocol === undefined) {
      response
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"error":{"message":"not found"}}');
      return;
    }
    const body = JSON.parse(raw) as Record<string, unknown>;
    const request: ProviderRequest = {
      protocol,
      path: incoming.url ?? '',
      headers: incoming.headers,
      body,
      raw,
      stream: body.stream === true,
      at: Date.now(),
      written: [],
    };
    requests.push(request);
    const reply = respond(request);
    if ('drop' in reply) {
      incoming.socket.destroy();
      return;
    }
    if ('status' in reply) {
      sendError(response, protocol, reply);
      return;
    }
    calls += 1;
    const turn: Turn = {
      text: reply.text,
      pieces: reply.text === undefined ? [] : (reply.pieces ?? halves(reply.text)),
      toolCalls: reply.toolCalls ?? [],
      call: calls,
      model: String(body.model),
    };
    if (request.stream) {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      // A client that goes away (a worker killed mid-answer) ends the answer; the server goes on.
      let gone = false;
      response.on('close', () => {
        gone = true;
      });
      response.on('error', () => {});
      if (reply.firstAfterMs !== undefined)
        await new Promise((resolve) => setTimeout(resolve, reply.firstAfterMs));
      for (const event of STREAMS[protocol](turn)) {
        if (reply.everyMs !== undefined) await new Promise((resolve) => setTimeout(resolve, reply.everyMs));
        if (gone) return;
        response.write(
          `${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${event.data}\n\n`,
        );
        request.written.push({ at: performance.timeOrigin + performance.now(), data: event.data });
      }
      response.end();
    } else {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(BODIES[protocol](turn)));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    respond(next) {
      respond = next;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Turn {
  text: string | undefined;
  /** The text's deltas when streamed. */
  pieces: string[];
  toolCalls: { name: string; input: Record<string, unknown> }[];
  /** Which answer of the server this is (1, 2, …): makes ids unique. */
  call: number;
  model: string;
}

function sendError(
  response: ServerResponse,
  protocol: ProviderProtocol,
  reply: { status: number; message: string; headers?: Record<string, string> },
): void {
  const body =
    protocol === 'anthropic'
      ? {
          type: 'error',
          error: {
            type: reply.status === 401 ? 'authentication_error' : 'api_error',
            message: reply.message,
          },
        }
      : {
          error: {
            message: reply.message,
            type: reply.status === 401 ? 'invalid_request_error' : 'server_error',
            param: null,
            code: null,
          },
        };
  response
    .writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers })
    .end(JSON.stringify(body));
}

const callId = (turn: Turn, index: number) => `call_${turn.call}_${index}`;

const BODIES: Record<ProviderProtocol, (turn: Turn) => unknown> = {
  chat: (turn) => ({
    id: `chatcmpl-${turn.call}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model: turn.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: turn.text ?? null,
          ...(turn.toolCalls.length === 0
            ? {}
            : {
                tool_calls: turn.toolCalls.map((call, index) => ({
                  id: callId(turn, index),
                  type: 'function',
                  function: { name: call.name, arguments: JSON.stringify(call.input) },
                })),
              }),
        },
        finish_reason: turn.toolCalls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: {
      prompt_tokens: PROVIDER_USAGE.input,
      completion_tokens: PROVIDER_USAGE.output,
      total_tokens: PROVIDER_USAGE.input + PROVIDER_USAGE.output,
    },
  }),
  responses: (turn) => ({
    id: `resp_${turn.call}`,
    object: 'response',
    created_at: 1_700_000_000,
    model: turn.model,
    status: 'completed',
    incomplete_details: null,
    output: [
      ...(turn.text === undefined
        ? []
        : [
            {
              type: 'message',
              id: `msg_${turn.call}`,
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: turn.text, annotations: [] }],
            },
          ]),
      ...turn.toolCalls.map((call, index) => ({
        type: 'function_call',
        id: `fc_${turn.call}_${index}`,
        call_id: callId(turn, index),
        name: call.name,
        arguments: JSON.stringify(call.input),
        status: 'completed',
      })),
    ],
    usage: responsesUsage(),
  }),
  anthropic: (turn) => ({
    type: 'message',
    id: `msg_${turn.call}`,
    role: 'assistant',
    model: turn.model,
    content: [
      ...(turn.text === undefined ? [] : [{ type: 'text', text: turn.text }]),
      ...turn.toolCalls.map((call, index) => ({
        type: 'tool_use',
        id: callId(turn, index),
        name: call.name,
        input: call.input,
      })),
    ],
    stop_reason: turn.toolCalls.length > 0 ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: PROVIDER_USAGE.input, output_tokens: PROVIDER_USAGE.output },
  }),
};

function responsesUsage() {
  return {
    input_tokens: PROVIDER_USAGE.input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: PROVIDER_USAGE.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: PROVIDER_USAGE.input + PROVIDER_USAGE.output,
  };
}

interface SseEvent {
  event?: string;
  data: string;
}

const json = (value: unknown) => JSON.stringify(value);
/** Splits text in two deltas, so a client must join them. */
const halves = (text: string) => [
  text.slice(0, Math.ceil(text.length / 2)),
  text.slice(Math.ceil(text.length / 2)),
];

const STREAMS: Record<ProviderProtocol, (turn: Turn) => SseEvent[]> = {
  chat: (turn) => {
    const base = {
      id: `chatcmpl-${turn.call}`,
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: turn.model,
    };
    const chunk = (delta: unknown, finish: string | null = null) => ({
      data: json({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] }),
    });
    const events: SseEvent[] = [chunk({ role: 'assistant', content: '' })];
    for (const part of turn.pieces) events.push(chunk({ content: part }));
    turn.toolCalls.forEach((call, index) => {
      const [first, second] = halves(JSON.stringify(call.input));
      events.push(
        chunk({
          tool_calls: [
            {
              index,
              id: callId(turn, index),
              type: 'function',
              function: { name: call.name, arguments: first },
            },
          ],
        }),
        chunk({ tool_calls: [{ index, function: { arguments: second } }] }),
      );
    });
    events.push(chunk({}, turn.toolCalls.length > 0 ? 'tool_calls' : 'stop'));
    events.push({
      data: json({
        ...base,
        choices: [],
        usage: {
          prompt_tokens: PROVIDER_USAGE.input,
          completion_tokens: PROVIDER_USAGE.output,
          total_tokens: PROVIDER_USAGE.input + PROVIDER_USAGE.output,
        },
      }),
    });
    events.push({ data: '[DONE]' });
    return events;
  },
  responses: (turn) => {
    const events: SseEvent[] = [];
    const add = (value: { type: string } & Record<string, unknown>) =>
      events.push({ event: value.type, data: json(value) });
    add({
      type: 'response.created',
      response: { id: `resp_${turn.call}`, created_at: 1_700_000_000, model: turn.model },
    });
    let index = 0;
    if (turn.text !== undefined) {
      const item = {
        type: 'message',
        id: `msg_${turn.call}`,
        role: 'assistant',
        status: 'in_progress',
        content: [],
      };
      add({ type: 'response.output_item.added', output_index: index, item });
      for (const delta of turn.pieces) {
        add({
          type: 'response.output_text.delta',
          item_id: item.id,
          output_index: index,
          content_index: 0,
          delta,
        });
      }
      add({
        type: 'response.output_item.done',
        output_index: index,
        item: {
          ...item,
          status: 'completed',
          content: [{ type: 'output_text', text: turn.text, annotations: [] }],
        },
      });
      index += 1;
    }
    turn.toolCalls.forEach((call, position) => {
      const item = {
        type: 'function_call',
        id: `fc_${turn.call}_${position}`,
        call_id: callId(turn, position),
        name: call.name,
      };
      const args = JSON.stringify(call.input);
      add({
        type: 'response.output_item.added',
        output_index: index,
        item: { ...item, arguments: '', status: 'in_progress' },
      });
      for (const delta of halves(args)) {
        add({ type: 'response.function_call_arguments.delta', item_id: item.id, output_index: index, delta });
      }
      add({
        type: 'response.output_item.done',
        output_index: index,
        item: { ...item, arguments: args, status: 'completed' },
      });
      index += 1;
    });
    add({
      type: 'response.completed',
      response: {
        id: `resp_${turn.call}`,
        status: 'completed',
        incomplete_details: null,
        usage: responsesUsage(),
      },
    });
    return events;
  },
  anthropic: (turn) => {
    const events: SseEvent[] = [];
    const add = (value: { type: string } & Record<string, unknown>) =>
      events.push({ event: value.type, data: json(value) });
    add({
      type: 'message_start',
      message: {
        id: `msg_${turn.call}`,
        type: 'message',
        role: 'assistant',
        model: turn.model,
        content: [],
        stop_reason: null,
        usage: { input_tokens: PROVIDER_USAGE.input, output_tokens: 1 },
      },
    });
    let index = 0;
    if (turn.text !== undefined) {
      add({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const text of turn.pieces)
        add({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
      add({ type: 'content_block_stop', index });
      index += 1;
    }
    turn.toolCalls.forEach((call, position) => {
      add({
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: callId(turn, position), name: call.name, input: {} },
      });
      for (const partial_json of halves(JSON.stringify(call.input))) {
        add({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
      }
      add({ type: 'content_block_stop', index });
      index += 1;
    });
    add({
      type: 'message_delta',
      delta: { stop_reason: turn.toolCalls.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: PROVIDER_USAGE.output },
    });
    add({ type: 'message_stop' });
    return events;
  },
};

/** What a request carries, read the same way for every protocol. */
export interface SentTurn {
  model: string;
  /** The system prompt(s). */
  system: string;
  /** The user messages' text. */
  user: string[];
  /** The names of the tools offered. */
  tools: string[];
  /** The tool results sent back, by call id, as text. */
  toolResults: Map<string, string>;
}

type Json = Record<string, unknown>;
const texts = (content: unknown): string[] =>
  typeof content === 'string'
    ? [content]
    : Array.isArray(content)
      ? content.flatMap((part: Json) => (typeof part.text === 'string' ? [part.text] : []))
      : [];

/**
 * Reads what a request sent — model, system prompt, user text, tools, tool results — whichever
 * protocol it spoke.
 *
 * @example
 * ```ts
 * sentTurn(server.requests[1]).toolResults.get('call_1_0'); // '5'
 * ```
 */
export function sentTurn(request: ProviderRequest): SentTurn {
  const body = request.body;
  const tools = ((body.tools ?? []) as Json[]).map((tool) =>
    String((tool.function as Json | undefined)?.name ?? tool.name),
  );
  const toolResults = new Map<string, string>();
  const user: string[] = [];
  const system: string[] = [];
  if (request.protocol === 'responses') {
    for (const item of (body.input ?? []) as Json[]) {
      if (item.type === 'function_call_output') toolResults.set(String(item.call_id), String(item.output));
      else if (item.role === 'user') user.push(...texts(item.content));
      else if (item.role === 'system' || item.role === 'developer') system.push(...texts(item.content));
    }
    if (typeof body.instructions === 'string') system.push(body.instructions);
  } else if (request.protocol === 'chat') {
    for (const message of (body.messages ?? []) as Json[]) {
      if (message.role === 'tool')
        toolResults.set(String(message.tool_call_id), texts(message.content).join(''));
      else if (message.role === 'user') user.push(...texts(message.content));
      else if (message.role === 'system') system.push(...texts(message.content));
    }
  } else {
    system.push(...texts(body.system));
    for (const message of (body.messages ?? []) as Json[]) {
      if (message.role !== 'user') continue;
      for (const part of (typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : message.content) as Json[]) {
        if (part.type === 'tool_result')
          toolResults.set(String(part.tool_use_id), texts(part.content).join(''));
        else if (part.type === 'text') user.push(String(part.text));
      }
    }
  }
  return { model: String(body.model), system: system.join('\n'), user, tools, toolResults };
}

/**
 * The environment that points every provider of Wharf's model registry at `server`, with test keys.
 *
 * @example
 * ```ts
 * const models = createModelRegistry({ env: providerEnv(server) });
 * ```
 */
export function providerEnv(server: Pick<ProviderServer, 'url'>): Record<string, string> {
  return {
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: `${server.url}/v1`,
    ANTHROPIC_API_KEY: 'ak-test',
    ANTHROPIC_BASE_URL: `${server.url}/v1`,
    OPENAI_COMPATIBLE_API_KEY: 'local-key',
  };
}
