import { describe, expect, it } from 'vitest';
import { OutputClient } from './output-client.js';

describe('OutputClient configuration', () => {
  it('reads URL, token and IN_REFS from the injected environment', () => {
    const client = new OutputClient({
      env: { WHARF_OUTPUT_URL: 'http://127.0.0.1:9/', WHARF_OUTPUT_TOKEN: 't', IN_REFS: 'out_a, out_b,,' },
    });
    expect(client.url).toBe('http://127.0.0.1:9');
    expect(client.inRefs).toEqual([{ outId: 'out_a' }, { outId: 'out_b' }]);
  });

  it('names the missing variable', () => {
    expect(() => new OutputClient({ env: { WHARF_OUTPUT_TOKEN: 't' } })).toThrow(/WHARF_OUTPUT_URL/);
    expect(() => new OutputClient({ env: { WHARF_OUTPUT_URL: 'http://x' } })).toThrow(
      expect.objectContaining({ code: 'UNAUTHORIZED', message: expect.stringMatching(/WHARF_OUTPUT_TOKEN/) }),
    );
  });

  it('turns an intake error body into a typed error', async () => {
    const fakeFetch = (async () =>
      new Response(
        JSON.stringify({
          error: { code: 'TOO_LARGE', message: 'request body exceeds the limit of 10 bytes' },
        }),
        {
          status: 413,
        },
      )) as typeof fetch;
    const client = new OutputClient({ url: 'http://intake', token: 't', fetch: fakeFetch });
    await expect(client.emit('x'.repeat(20))).rejects.toMatchObject({
      code: 'TOO_LARGE',
      message: /10 bytes/,
    });
  });
});
