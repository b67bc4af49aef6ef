import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEncryptionCodec, KeyRing } from '@wharf/codec';
import { fromWirePayload, toWirePayload, type WirePayloads } from '@wharf/codec/server';
import { type OidcIssuer, startOidcIssuer } from '@wharf/codec/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const codecMain = fileURLToPath(new URL('../dist/codec-main.js', import.meta.url));
const key = randomBytes(32);
const codec = createEncryptionCodec({ keyRing: KeyRing.from([{ id: 'k1', key }]) });
/** A JSON payload as the default converter writes one. */
const cargo = { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('"the cargo"') };

/** The codec server program as a child process with this environment (and nothing of ours). */
function spawnCodecServer(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [codecMain], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Everything a process wrote to stdout and stderr, and its exit code, once it exits. */
function ended(child: ChildProcess): Promise<{ code: number | null; output: string }> {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

/** The port of the program's start line (`codec-server-start`, pino JSON on stdout). */
function listening(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      for (const line of seen.split('\n')) {
        if (!line.includes('codec-server-start')) continue;
        const { url } = JSON.parse(line) as { url: string };
        resolve(Number(new URL(url).port));
      }
    });
    child.once('exit', (code) =>
      reject(new Error(`codec server exited (${code}) before listening: ${seen}`)),
    );
  });
}

describe('wharf-codec-server with an OIDC issuer (a real child process)', () => {
  let dir: string;
  let idp: OidcIssuer;
  let child: ChildProcess;
  let exit: Promise<{ code: number | null; output: string }>;
  let port: number;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-codec-oidc-'));
    idp = await startOidcIssuer();
    child = spawnCodecServer({
      WHARF_CODEC_KEYS: `k1:${key.toString('base64')}`,
      // Not loopback: the OIDC issuer alone makes that allowed.
      WHARF_CODEC_HOST: '0.0.0.0',
      WHARF_CODEC_PORT: '0',
      WHARF_CODEC_OIDC_ISSUER: idp.issuer,
      WHARF_CODEC_OIDC_AUDIENCE: 'temporal-ui',
      // Compose passes the unset ones as empty.
      WHARF_CODEC_OIDC_JWKS_URI: '',
      WHARF_CODEC_TOKEN: '',
      WHARF_DATA_DIR: join(dir, 'data'),
      LOG_LEVEL: 'info',
    });
    exit = ended(child);
    port = await listening(child);
  });

  afterAll(async () => {
    if (child !== undefined && child.exitCode === null) {
      child.kill('SIGTERM');
      await exit;
    }
    await idp?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  async function decodeWith(authorization: string | undefined) {
    const [payload] = await codec.encode([cargo]);
    const response = await fetch(`http://127.0.0.1:${port}/default/decode`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        ...(authorization === undefined ? {} : { Authorization: authorization }),
      },
      body: JSON.stringify({ payloads: [toWirePayload(payload as typeof cargo)] }),
    });
    return { status: response.status, text: await response.text() };
  }

  it('decodes for a valid access token of the issuer, and logs its subject', async () => {
    const answer = await decodeWith(`Bearer ${await idp.token({ subject: 'bob@example.com' })}`);
    expect(answer.status).toBe(200);
    const [wire] = (JSON.parse(answer.text) as WirePayloads).payloads;
    expect(Buffer.from(fromWirePayload(wire as never).data ?? []).toString()).toBe('"the cargo"');
  });

  it('refuses 401 a token for another audience, an expired one, a bad signature, and none', async () => {
    const now = Math.floor(Date.now() / 1000);
    const refused = {
      'wrong audience': `Bearer ${await idp.token({ audience: 'someone-else' })}`,
      expired: `Bearer ${await idp.token({ expires: now - 60 })}`,
      'bad signature': `Bearer ${await idp.token({ foreignKey: true })}`,
      'no token': undefined,
    };
    for (const [what, authorization] of Object.entries(refused)) {
      const answer = await decodeWith(authorization);
      expect(answer.status, what).toBe(401);
      expect(answer.text, what).not.toContain('the cargo');
    }
  });

  it('stops on SIGTERM, having logged who decoded by subject and never a payload', async () => {
    child.kill('SIGTERM');
    const { code, output } = await exit;
    expect(code).toBe(0);
    expect(output).toContain(`oidc ${idp.issuer}`);
    expect(output).toContain('oidc:bob@example.com');
    expect(output).not.toContain('the cargo');
  });

  it('refuses to start with an audience but no issuer, naming the variable', async () => {
    const { code, output } = await ended(
      spawnCodecServer({
        WHARF_CODEC_KEYS: `k1:${key.toString('base64')}`,
        WHARF_CODEC_PORT: '0',
        WHARF_CODEC_OIDC_AUDIENCE: 'temporal-ui',
        WHARF_DATA_DIR: join(dir, 'refused'),
      }),
    );
    expect(code).toBe(1);
    expect(output).toContain('WHARF_CODEC_OIDC_AUDIENCE: needs WHARF_CODEC_OIDC_ISSUER');
  });
});
