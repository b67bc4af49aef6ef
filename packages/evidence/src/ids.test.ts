import { describe, expect, it } from 'vitest';
import { assertId, compareIds, formatArtifactId, parseArtifactId, toolOutputFileName } from './ids.js';

describe('ids', () => {
  it('names tool outputs NNN_<tool>.txt and reads artifact ids back', () => {
    expect(toolOutputFileName(2, 'ssh_exec')).toBe('002_ssh_exec.txt');
    expect(toolOutputFileName(1234, 'mcp/github search')).toBe('1234_mcp_github_search.txt');
    expect(toolOutputFileName(1, '..')).toBe('001_tool.txt');
    const id = formatArtifactId('abc-123', 2, 'ssh_exec');
    expect(id).toBe('abc-123/tool_calls/002_ssh_exec.txt');
    expect(parseArtifactId(id)).toEqual({ workerId: 'abc-123', seq: 2 });
    expect(parseArtifactId('../x/tool_calls/001_a.txt')).toBeUndefined();
    expect(parseArtifactId('w/tool_calls/000_a.txt')).toBeUndefined();
  });

  it('rejects ids that are unsafe in paths and markers', () => {
    expect(() => assertId('workerId', 'ok-1.2:3')).not.toThrow();
    for (const bad of ['', '../x', 'a/b', 'a,b', 'a]', '.hidden', 'x'.repeat(129), 7]) {
      expect(() => assertId('workerId', bad)).toThrow(/workerId/);
    }
  });

  it('orders numeric ids by value', () => {
    expect(['10', '9', 'b', '010', 'a', '2'].sort(compareIds)).toEqual(['2', '9', '010', '10', 'a', 'b']);
  });
});
