import { readFileSync } from 'node:fs';
import { sandboxSchema } from '@wharf/orchestrator';
import type { McpServerConfig } from '@wharf/orchestrator/worker';
import { z } from 'zod';

const strings = z.record(z.string(), z.string());

/** One MCP server: a command started over stdio, or a Streamable HTTP URL. */
const mcpServerSchema = z.union([
  z.strictObject({
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: strings.optional(),
    cwd: z.string().min(1).optional(),
    /** Confinement where the worker has a sandbox: a task's `sandbox` block. */
    sandbox: sandboxSchema.optional(),
  }),
  z.strictObject({
    url: z.url({ protocol: /^https?$/ }),
    headers: strings.optional(),
  }),
]);

/** `{ name: server }`; a name prefixes its tools' names (`<name>_<tool>`), so it is a word. */
export const mcpServersSchema = z.record(z.string(), mcpServerSchema).superRefine((servers, context) => {
  for (const name of Object.keys(servers)) {
    if (!/^[A-Za-z][A-Za-z0-9_-]{0,63}$/.test(name)) {
      context.addIssue({
        code: 'custom',
        path: [name],
        message: 'a server name is a word (a letter, then letters, digits, _ or -; it prefixes its tools)',
      });
    }
  }
});

/**
 * `WHARF_MCP_SERVERS`: the MCP servers a worker connects to at start, as JSON or the path of
 * a JSON file: `{ "files": { "command": "node", "args": ["server.js"] }, "docs": { "url":
 * "https://…/mcp", "headers": { … } } }`. Empty counts as unset. Unreadable files, bad JSON
 * and bad shapes are issues of the variable, naming the field.
 *
 * @example
 * ```ts
 * z.object({ WHARF_MCP_SERVERS: mcpServersVariable }).parse({ WHARF_MCP_SERVERS: '/etc/wharf/mcp.json' });
 * ```
 */
export const mcpServersVariable = z.preprocess(
  (value) => (value === '' ? undefined : value),
  z
    .string()
    .transform((text, context): Record<string, McpServerConfig> => {
      const trimmed = text.trim();
      let json = trimmed;
      if (!/^[[{]/.test(trimmed)) {
        try {
          json = readFileSync(trimmed, 'utf8');
        } catch (error) {
          context.addIssue({
            code: 'custom',
            message: `is neither JSON nor a readable file: ${(error as Error).message}`,
          });
          return z.NEVER;
        }
      }
      let value: unknown;
      try {
        value = JSON.parse(json);
      } catch (error) {
        context.addIssue({ code: 'custom', message: `is not valid JSON: ${(error as Error).message}` });
        return z.NEVER;
      }
      const parsed = mcpServersSchema.safeParse(value);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          context.addIssue({
            code: 'custom',
            message: `${issue.path.join('.') || '(top level)'}: ${issue.message}`,
          });
        }
        return z.NEVER;
      }
      return parsed.data as Record<string, McpServerConfig>;
    })
    .optional(),
);
