import { describe, expect, it } from 'vitest';
import { type ClusterConfig, defaultClusterPorts } from './cluster-config.js';
import { ClusterTopology } from './cluster-topology.js';

const config: ClusterConfig = {
  dir: '/tmp/wharf-cluster',
  root: '/tmp/wharf',
  ports: defaultClusterPorts,
  workers: 2,
};
const keys = { WHARF_CODEC_KEYS: 'k1:AAAA' };

describe('ClusterTopology and the codec server', () => {
  it('runs no codec server without keys, exactly as before', () => {
    const cluster = new ClusterTopology(config, { env: {} });
    expect(cluster.names).toEqual([
      'postgresql',
      's3',
      'temporal',
      'temporal-ui',
      'wharf-worker-1',
      'wharf-worker-2',
    ]);
    expect(cluster.codecUrl).toBeUndefined();
    expect(cluster.clientEnvironment()).not.toHaveProperty('TEMPORAL_CODEC_ENDPOINT');
    expect(cluster.config.codec).toBe(false);
  });

  it('runs wharf-codec after the UI and before the workers when keys are set, and hands clients its endpoint (never the keys)', () => {
    for (const env of [keys, { WHARF_CODEC_KEYS_FILE: '/run/secrets/keys' }]) {
      const cluster = new ClusterTopology(config, { env });
      expect(cluster.names.slice(3, 5)).toEqual(['temporal-ui', 'wharf-codec']);
      expect(cluster.codecUrl).toBe('http://127.0.0.1:8234');
      const client = cluster.clientEnvironment();
      expect(client.TEMPORAL_CODEC_ENDPOINT).toBe('http://127.0.0.1:8234');
      expect(Object.keys(client)).not.toContain('WHARF_CODEC_KEYS');
      expect(Object.keys(client)).not.toContain('WHARF_CODEC_KEYS_FILE');
    }
  });

  it('keeps the recorded choice whatever the environment later (down stops what up started), and moves with its port', () => {
    const recorded = new ClusterTopology({ ...config, codec: true }, { env: {} });
    expect(recorded.names).toContain('wharf-codec');
    expect(new ClusterTopology({ ...config, codec: false }, { env: keys }).names).not.toContain(
      'wharf-codec',
    );
    const moved = new ClusterTopology(
      { ...config, ports: { ...defaultClusterPorts, codec: 18234 } },
      { env: keys },
    );
    expect(moved.codecUrl).toBe('http://127.0.0.1:18234');
  });

  it('gives a cluster recorded before the codec port existed the default one', () => {
    const { codec: _codec, ...older } = defaultClusterPorts;
    const cluster = new ClusterTopology(
      { ...config, ports: older as typeof defaultClusterPorts },
      { env: keys },
    );
    expect(cluster.config.ports.codec).toBe(8234);
  });
});
