import { createMCPClient, type MCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport as StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import type { SandboxSettings } from '@wharf/swarm';
import type { Tool, ToolSet } from 'ai';
import { childEnvironment } from '../activities/child-env.js';
import type { WorkerSandbox } from '../activities/worker-sandbox.js';
import { toolOutput } from './tool-output.js';

/** An MCP server a worker's agents may use: a command it starts (stdio) or a URL (HTTP). */
export type McpServerConfig =
  | {
      command: string;
      args?: string[];
      env?: Record<string, string>;
      cwd?: string;
      /** How the server is confined where the worker has a sandbox (as a task's `sandbox` block). */
      sandbox?: SandboxSettings;
    }
  | { url: string; headers?: Record<string, string> };

/** Connected MCP servers: their tools, named `<server>_<tool>`, and how to disconnect. */
export interface McpTools {
  tools: ToolSet;
  close(): Promise<void>;
}

/**
 * Connects to MCP servers with the AI SDK MCP client and returns their tools for
 * `createWharfWorker({ tools })`, each named `<server>_<tool>` (what `agents.<name>.tools`
 * selects). A server started over stdio gets the worker's environment without the credentials
 * Wharf uses (`childEnvironment`, as scripts do), then its own `env`; with `sandbox` it runs in
 * it as a script would (its `cwd` writable, no network unless its `sandbox.network` allows). A tool's text content is
 * what the model sees (cut like any tool output); an MCP error result is a failed call. Close
 * them when the worker stops.
 *
 * @example
 * ```ts
 * const mcp = await connectMcpServers({ files: { command: 'node', args: ['files-server.js'] } });
 * const worker = await createWharfWorker({ connection, store, artifacts, tools: mcp.tools });
 * await worker.run();
 * await mcp.close();
 * ```
 */
export async function connectMcpServers(
  servers: Readonly<Record<string, McpServerConfig>>,
  options: { sandbox?: WorkerSandbox } = {},
): Promise<McpTools> {
  const clients: MCPClient[] = [];
  const tools: ToolSet = {};
  try {
    for (const [server, config] of Object.entries(servers)) {
      const client = await createMCPClient({
        transport:
          'url' in config
            ? {
                type: 'http',
                url: config.url,
                ...(config.headers === undefined ? {} : { headers: config.headers }),
              }
            : new StdioMCPTransport({
                ...sandboxed(config, options.sandbox),
                // The worker's environment without Wharf's credentials, then the server's own.
                env: childEnvironment({ extra: config.env }),
                ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
              }),
      });
      clients.push(client as MCPClient);
      for (const [name, original] of Object.entries(await client.tools())) {
        tools[`${server}_${name}`] = withTextOutput(original as Tool);
      }
    }
  } catch (error) {
    await Promise.allSettled(clients.map((client) => client.close()));
    throw error;
  }
  return {
    tools,
    async close() {
      await Promise.allSettled(clients.map((client) => client.close()));
    },
  };
}

/** The server's command line, in the worker's sandbox when there is one. */
function sandboxed(
  config: Extract<McpServerConfig, { command: string }>,
  sandbox: WorkerSandbox | undefined,
): { command: string; args?: string[] } {
  if (sandbox === undefined)
    return { command: config.command, ...(config.args === undefined ? {} : { args: config.args }) };
  const [command, args] = sandbox.wrap(
    config.command,
    config.args ?? [],
    config.sandbox,
    config.cwd ?? process.cwd(),
  );
  return { command, args };
}

/** The MCP result's text parts as the tool's output; `isError` makes it a failed call. */
function withTextOutput(original: Tool): Tool {
  const execute = original.execute as ((input: unknown, options: unknown) => Promise<unknown>) | undefined;
  if (execute === undefined) return original;
  return {
    ...original,
    execute: async (input: unknown, options: unknown) => {
      const result = (await execute(input, options)) as {
        content?: { type: string; text?: string }[];
        isError?: boolean;
      };
      if (!Array.isArray(result?.content)) return result;
      const text = result.content
        .map((part) => (part.type === 'text' ? (part.text ?? '') : `[${part.type} content]`))
        .join('\n');
      return toolOutput({ text, full: text, failed: result.isError === true });
    },
  } as Tool;
}
