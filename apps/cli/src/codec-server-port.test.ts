import { describe, expect, it } from 'vitest';
import { defaultClusterPorts, temporalPorts } from './cluster/cluster-config.js';
import { defaultCodecServerPort } from './codec-server-port.js';
import { createProgram } from './program.js';

describe("wharf codec-server's default port", () => {
  it("is none of the default cluster's ports but its codec server's, whose role it has", () => {
    const command = createProgram().commands.find((each) => each.name() === 'codec-server');
    const port = command?.options.find((option) => option.long === '--port')?.defaultValue as unknown;
    expect(port).toBe(defaultCodecServerPort);
    // Up to `wharf cluster up --workers 64`, each worker with a health port of its own.
    const { codec, workerHealth, temporal, ...others } = defaultClusterPorts;
    const taken = [
      ...Object.values(others),
      ...Object.values(temporalPorts(temporal)),
      ...Array.from({ length: 64 }, (_, n) => workerHealth + n),
    ];
    expect(taken).not.toContain(port);
    expect(port).toBe(codec);
  });
});
