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

describe('OutputClient IN_REFS and stored lists', () => {
  it('reads the refs from WHARF_IN_REFS_FILE when the spawner wrote them to a file', async () => {
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const file = join(await mkdtemp(join(tmpdir(), 'wharf-in-refs-')), 'in-refs.json');
    await writeFile(file, JSON.stringify(['out_a', 'out_b']));
    const client = new OutputClient({
      env: { WHARF_OUTPUT_URL: 'http://x', WHARF_OUTPUT_TOKEN: 't', WHARF_IN_REFS_FILE: file },
    });
    expect(client.inRefs).toEqual([{ outId: 'out_a' }, { outId: 'out_b' }]);
    await writeFile(file, '{"not":"a list"}');
    expect(
      () =>
        new OutputClient({
          env: { WHARF_OUTPUT_URL: 'http://x', WHARF_OUTPUT_TOKEN: 't', WHARF_IN_REFS_FILE: file },
        }),
    ).toThrow(/does not hold a JSON array/);
  });

  it('expands a manifest through the intake, chunk by chunk', async () => {
    const bodies: Record<string, string> = {
      out_m: JSON.stringify({
        format: 'wharf-manifest/1',
        count: 3,
        chunks: [
          { outId: 'out_c0', count: 2 },
          { outId: 'out_c1', count: 1 },
        ],
      }),
      out_c0: '"out_a"\n{"instance":1,"status":"ok","outIds":["out_b","out_s"]}\n',
      out_c1: '{"instance":2,"status":"failed","outIds":[]}\n',
    };
    const fakeFetch = (async (url: string) => {
      const id = /outputs\/([^/]+)\/body/.exec(url)?.[1] ?? '';
      return new Response(bodies[id] ?? '', { status: bodies[id] === undefined ? 404 : 200 });
    }) as typeof fetch;
    const client = new OutputClient({ url: 'http://intake', token: 't', fetch: fakeFetch });
    expect((await client.readManifest({ outId: 'out_m' })).count).toBe(3);
    expect(await client.manifestRefs({ outId: 'out_m' })).toEqual([
      { outId: 'out_a' },
      { outId: 'out_b' },
      { outId: 'out_s' },
    ]);
  });
});
