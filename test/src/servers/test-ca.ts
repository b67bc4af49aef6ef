import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** PEM files of a throwaway certificate authority, a server certificate and a client certificate. */
export interface TestCertificates {
  dir: string;
  /** The CA certificate clients trust (`TEMPORAL_TLS_SERVER_CA_CERT_PATH`). */
  caCert: string;
  /** Server certificate for `serverName` (DNS name only: clients must send that name). */
  serverCert: string;
  serverKey: string;
  /** Client certificate and key for mTLS (`TEMPORAL_TLS_CLIENT_CERT_PATH`, `…_KEY_PATH`). */
  clientCert: string;
  clientKey: string;
  serverName: string;
  /** A client certificate signed by another CA, which the server must refuse. */
  strangerCert: string;
  strangerKey: string;
}

async function openssl(args: string[], cwd: string): Promise<void> {
  await run('openssl', args, { cwd });
}

/** A CA (key + self-signed certificate) in `dir` as `<name>.key` / `<name>.pem`. */
async function authority(dir: string, name: string): Promise<void> {
  await openssl(
    ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', `${name}.key`],
    dir,
  );
  await openssl(
    [
      'req',
      '-x509',
      '-new',
      '-key',
      `${name}.key`,
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
    ],
    dir,
  );
}

/** A key and a certificate signed by the CA `ca`, with the given extensions. */
async function issue(dir: string, name: string, ca: string, extensions: string): Promise<void> {
  await openssl(
    ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', `${name}.key`],
    dir,
  );
  await openssl(['req', '-new', '-key', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`], dir);
  await writeFile(join(dir, `${name}.ext`), extensions);
  await openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${ca}.pem`,
      '-CAkey',
      `${ca}.key`,
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
    ],
    dir,
  );
}

/**
 * Generates, with the `openssl` command, a CA, a server certificate for `serverName` and client
 * certificates (one from the CA, one from a stranger CA) in `dir`.
 *
 * @example
 * ```ts
 * const certificates = await createTestCertificates(dir);
 * ```
 */
export async function createTestCertificates(
  dir: string,
  serverName = 'temporal.wharf.test',
): Promise<TestCertificates> {
  await authority(dir, 'ca');
  await authority(dir, 'stranger-ca');
  await issue(
    dir,
    'server',
    'ca',
    `basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:${serverName}\n`,
  );
  const client = 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=clientAuth\n';
  await issue(dir, 'client', 'ca', client);
  await issue(dir, 'stranger', 'stranger-ca', client);
  return {
    dir,
    caCert: join(dir, 'ca.pem'),
    serverCert: join(dir, 'server.pem'),
    serverKey: join(dir, 'server.key'),
    clientCert: join(dir, 'client.pem'),
    clientKey: join(dir, 'client.key'),
    serverName,
    strangerCert: join(dir, 'stranger.pem'),
    strangerKey: join(dir, 'stranger.key'),
  };
}
