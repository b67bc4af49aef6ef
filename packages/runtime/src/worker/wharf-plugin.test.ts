import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { InMemoryArtifactStore } from '@wharf/evidence';
import { InMemoryOutputStore } from '@wharf/output-store';
import { describe, expect, it } from 'vitest';
import { createWharfTracing } from '../tracing/create-wharf-tracing.js';
import { wharfPlugin, workflowsPath } from './wharf-plugin.js';

const parts = () => ({ store: new InMemoryOutputStore(), artifacts: new InMemoryArtifactStore() });

describe('wharfPlugin', () => {
  it("adds Wharf's workflows, activities and converter to a worker, keeping the worker's own", () => {
    const own = async () => 'mine';
    const options = wharfPlugin(parts()).configureWorker({ taskQueue: 'q', activities: { own } });
    expect(options.workflowsPath).toBe(workflowsPath);
    expect(options.activities).toMatchObject({ own });
    expect(Object.keys(options.activities ?? {})).toEqual(
      expect.arrayContaining(['runSubagent', 'agentStart', 'agentModelStep', 'agentToolCall', 'agentFinish']),
    );
    expect(options.dataConverter?.externalStorage).toBeDefined();
    // Tracing off: nothing of OpenTelemetry goes into the workflow bundle or the worker.
    expect(options.interceptors?.workflowModules).toBeUndefined();
    expect(options.sinks).toBeUndefined();
  });

  it('leaves workflows of the worker’s own (a path or a bundle) alone', () => {
    const plugin = wharfPlugin(parts());
    expect(plugin.configureWorker({ taskQueue: 'q', workflowsPath: '/app/workflows.js' }).workflowsPath).toBe(
      '/app/workflows.js',
    );
    const bundled = plugin.configureWorker({ taskQueue: 'q', workflowBundle: { code: '' } });
    expect(bundled.workflowsPath).toBeUndefined();
  });

  it('with a version, runs the worker versioned with its workflows pinned; unversioned without one', () => {
    const version = { deploymentName: 'wharf', buildId: 'b1' };
    expect(
      wharfPlugin({ ...parts(), version }).configureWorker({ taskQueue: 'q' }).workerDeploymentOptions,
    ).toEqual({ version, useWorkerVersioning: true, defaultVersioningBehavior: 'PINNED' });
    expect(wharfPlugin(parts()).configureWorker({ taskQueue: 'q' }).workerDeploymentOptions).toBeUndefined();
    // The worker's own deployment options win.
    const own = {
      version,
      useWorkerVersioning: true as const,
      defaultVersioningBehavior: 'AUTO_UPGRADE' as const,
    };
    expect(
      wharfPlugin({ ...parts(), version }).configureWorker({ taskQueue: 'q', workerDeploymentOptions: own })
        .workerDeploymentOptions,
    ).toBe(own);
    // A version the server would refuse fails when the plugin is made.
    expect(() => wharfPlugin({ ...parts(), version: { deploymentName: 'a.b', buildId: 'b1' } })).toThrow(
      /deployment name contains/,
    );
  });

  it('gives a client the converter; `dataConverter: {}` turns offloading off', () => {
    expect(wharfPlugin(parts()).configureClient({}).dataConverter?.externalStorage).toBeDefined();
    expect(wharfPlugin({ ...parts(), dataConverter: {} }).configureClient({}).dataConverter).toEqual({});
  });

  it("with tracing, brings Temporal's OpenTelemetry interceptors, the workflow module and the span sink", async () => {
    const tracing = await createWharfTracing({
      spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())],
    });
    try {
      const plugin = wharfPlugin({ ...parts(), tracing });
      const worker = plugin.configureWorker({ taskQueue: 'q' });
      expect(worker.workflowsPath).toBe(workflowsPath);
      expect(worker.interceptors?.workflowModules).toEqual([
        expect.stringMatching(/interceptors-opentelemetry\/lib\/workflow-interceptors/),
      ]);
      expect(worker.interceptors?.activity).toHaveLength(1);
      expect(worker.sinks?.exporter).toBeDefined();
      expect(plugin.configureClient({}).interceptors?.workflow).toHaveLength(1);
      // A bundle built ahead (`bundleWorkflowCode({ plugins })`) gets the workflow module too.
      const bundle = plugin.configureBundler({ workflowsPath: '/app/workflows.js' });
      expect(bundle.workflowsPath).toBe('/app/workflows.js');
      expect(bundle.workflowInterceptorModules).toEqual([
        expect.stringMatching(/interceptors-opentelemetry\/lib\/workflow-interceptors/),
      ]);
    } finally {
      await tracing.shutdown();
    }
  });
});
