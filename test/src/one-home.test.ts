import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Rules once written twice, each now with one home (issue 36, item 5). A second definition, or
// a second reading of the same headers, fails here instead of drifting quietly.
const root = fileURLToPath(new URL('../../', import.meta.url));

/** The non-test sources of every package and app, by path from the repository root. */
function sources(): { path: string; text: string }[] {
  const files: { path: string; text: string }[] = [];
  for (const group of ['packages', 'apps']) {
    for (const name of readdirSync(join(root, group))) {
      const src = join(group, name, 'src');
      let paths: string[];
      try {
        paths = readdirSync(join(root, src), { recursive: true, encoding: 'utf8' });
      } catch {
        continue;
      }
      for (const path of paths) {
        if (!path.endsWith('.ts') || /\.test(\.data)?\.ts$/.test(path) || path.endsWith('.d.ts')) continue;
        files.push({ path: join(src, path), text: readFileSync(join(root, src, path), 'utf8') });
      }
    }
  }
  return files;
}

/** The files whose text matches `pattern`. */
function filesMatching(files: readonly { path: string; text: string }[], pattern: RegExp): string[] {
  return files.filter(({ text }) => pattern.test(text)).map(({ path }) => path);
}

const rules: { rule: string; pattern: RegExp; home: string }[] = [
  {
    rule: 'how long a server asked to wait (retry-after-ms, Retry-After)',
    pattern:
      /function retryAfterMs\b|get\(\s*['"]retry-after(?:-ms)?['"]|\[\s*['"]retry-after(?:-ms)?['"]\s*\]/i,
    home: 'packages/common/src/retry-after.ts',
  },
  {
    rule: 'the byte range of a body or an artifact',
    pattern: /(?:interface|type) ByteRange\b(?!\s*})/,
    home: 'packages/common/src/byte-range.ts',
  },
  {
    rule: 'the longest UTF-8 prefix that fits a byte budget',
    pattern: /function (?:clampUtf8|clipHead)\b/,
    home: 'packages/common/src/utf8.ts',
  },
  {
    rule: 'the input of an agent task (a swarm instance, the supervisor, a spawned worker)',
    pattern: /:\s*AgentTaskInput\s*=\s*\{|inject_context:\s*false,|\bspawnable:\s*[\w.#]*agents\b/,
    home: 'packages/swarm/src/contracts/agent-task-input.ts',
  },
];

describe('one home per rule', () => {
  const files = sources();

  it('reads the sources of every package and app', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  for (const { rule, pattern, home } of rules) {
    it(`${rule}: only in ${home}`, () => {
      expect(filesMatching(files, pattern)).toEqual([home]);
    });
  }

  it('sees a second definition or reading', () => {
    const [retry, range, clamp, agentTask] = rules.map(({ pattern }) => pattern) as [
      RegExp,
      RegExp,
      RegExp,
      RegExp,
    ];
    expect(retry.test("const after = response.headers.get('Retry-After');")).toBe(true);
    expect(retry.test("const millis = lower['retry-after-ms'];")).toBe(true);
    expect(retry.test("headers.push(['Retry-After', String(seconds)]);")).toBe(false);
    expect(range.test('export interface ByteRange {')).toBe(true);
    expect(range.test("import type { ByteRange } from '@wharf/common';\nexport type { ByteRange };")).toBe(
      false,
    );
    expect(clamp.test('function clipHead(text: string, maxBytes: number): string {')).toBe(true);
    expect(agentTask.test('const child: AgentTaskInput = {')).toBe(true);
    expect(
      agentTask.test('definition: { agent, prompt, depends_on: [], inject_context: false, inputs: {} },'),
    ).toBe(true);
    expect(agentTask.test('{ ...call.input, spawnable: this.#state.definition.agents }')).toBe(true);
    expect(agentTask.test("spawnable?: SwarmDefinition['agents'];")).toBe(false);
    expect(agentTask.test('spawnable: Object.keys(input.spawnable)')).toBe(false);
  });
});
